"""The intermediate representation: a kernel as frozen data.

The front end builds it; every later pass reads it and never changes it.  Index
expressions, loop bounds and guard conditions are quasi-affine :mod:`arraypart.expr`
trees over loop iterators (``#define`` constants are already folded to integers).
Invariants are checked at construction (``__post_init__``); a violated invariant is a
bug in the front end, not bad input, so it raises ``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product
from math import prod
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar, Union

from .errors import Coord
from .expr import (Expr, const, difference, floordiv, mod, substitute, var as expr_var,
                   variables as expr_variables)

T = TypeVar("T")

ACCESS_KINDS = ("read", "write")
PARTITION_TYPES = ("cyclic", "block", "complete")


# ---------------------------------------------------------------- hardware model


@dataclass(frozen=True, slots=True)
class PortModel:
    """The ports of one bank (DESIGN §2), per clock cycle.

    ``read_write`` ports serve a read or a write, ``read_only`` only reads, ``write_only``
    only writes; ``read_only = None`` means unlimited reads (rom_np, ram_1wnr).  Over ``ii`` cycles
    a bank serves ``reads`` and ``writes`` iff

        max(0, writes - ii*write_only) + max(0, reads - ii*read_only) <= ii*read_write

    (dedicated ports first, shared ports for the rest).
    """

    name: str
    read_write: int
    read_only: int | None
    write_only: int
    writable: bool = True

    def fits(self, reads: int, writes: int, ii: int = 1) -> bool:
        if writes and not self.writable:
            return False
        extra_writes = max(0, writes - ii * self.write_only)
        if self.read_only is None:
            return extra_writes <= ii * self.read_write
        extra_reads = max(0, reads - ii * self.read_only)
        return extra_writes + extra_reads <= ii * self.read_write

    @property
    def capacity(self) -> int | None:
        """Accesses one bank serves per cycle (None: unlimited reads)."""
        if self.read_only is None:
            return None
        return self.read_write + self.read_only + self.write_only


PORT_MODELS: dict[str, PortModel] = {
    "ram_1p": PortModel("ram_1p", 1, 0, 0),
    "ram_2p": PortModel("ram_2p", 1, 1, 0),
    "ram_s2p": PortModel("ram_s2p", 0, 1, 1),
    "ram_t2p": PortModel("ram_t2p", 2, 0, 0),
    "rom_1p": PortModel("rom_1p", 0, 1, 0, writable=False),
    "rom_2p": PortModel("rom_2p", 0, 2, 0, writable=False),
    "rom_np": PortModel("rom_np", 0, None, 0, writable=False),
    # one write port, and a read port per reader (Vitis keeps a copy of the memory per
    # read port, every copy written through the one write port)
    "ram_1wnr": PortModel("ram_1wnr", 0, None, 1),
}
DEFAULT_PORTS = {1: "ram_1p", 2: "ram_t2p"}  # the --ports option
# An m_axi bundle is one AXI master adapter with independent read and write channels:
# one read and one write per cycle (UG1399, "M_AXI Bundles").
M_AXI_PORTS = PortModel("m_axi", 0, 1, 1)
# A streaming interface (ap_fifo, axis) moves one element per cycle; Vitis makes it
# read-only or write-only (UG1399, "Port-Level Protocols").
FIFO_PORTS = PortModel("fifo", 0, 1, 1)
# A register port (Array.register) is a value on wires, read at will, one value
# written a cycle; its banking is a register, which no port bounds (Scheme.registers).
REGISTER_PORTS = PortModel("register", 0, None, 1)


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class PartitionPragma:
    """``#pragma HLS array_partition variable=A type=... factor=... dim=...`` as written.

    ``dim = 0`` means every dimension; ``factor`` is 0 for ``complete``.  ``off``:
    ``off=true`` switches the partition of those dimensions off (one memory there).
    """

    type: str
    factor: int
    dim: int
    coord: Coord
    off: bool = False

    def __post_init__(self):
        if self.type not in PARTITION_TYPES:
            raise ValueError(f"partition type {self.type!r}")
        if self.dim < 0 or self.factor < 0:
            raise ValueError("negative dim or factor")


@dataclass(frozen=True, slots=True)
class Array:
    """An array the kernel touches: a top-function parameter (``interface``) or a local
    (of the top function, of a sub-function, or of the file).

    ``storage`` is the ``bind_storage`` type (None: the ``--ports`` default applies).
    ``bundle`` names the m_axi bundle of an off-chip interface array (None: on-chip);
    off-chip arrays and on-chip pointers (``partitionable`` False) are never banked.
    The first dimension of a pointer or unsized parameter is its *extent*: the
    ``depth=`` of its INTERFACE pragma, else the largest index its accesses reach.
    ``functions``: the sub-functions whose text accesses it (through an array parameter
    or as their own local), and the top when a function-level pipeline accesses it;
    that text is shared by every call, so the banking must be pragma-only
    (:attr:`pragma_only`).  ``header``: an array that a header of the kernel declares
    (at file scope, or inside a function body that includes it), whose declaration
    arraypart does not rewrite: pragma-only too; so is a ``file_scope`` array of the
    kernel's own text, which other functions of the file may use.  ``stencil``: the loop whose
    ``array_stencil`` window reads it (never partitioned: Vitis drops the window of a
    partitioned array).  ``fifo``: the streaming interface (``ap_fifo``, ``axis``) of an
    array argument of the top: a FIFO port, no memory (never partitioned, no BRAM).
    ``stream``: ``fifo`` is an ``hls::stream`` argument (or an array of them), or one
    the top declares (a dataflow channel, not an interface), whose elements are
    transfers, not memory the program addresses.
    ``reshapes``: the user's ``array_reshape`` pragmas; the array is one memory of wide
    words (:meth:`word_index`), kept as written (never partitioned: a partition on top
    of a reshape conflicts).  ``independent``: a ``dependence variable=A inter false``
    pragma (or ``type=inter dependent=false``) states that no pipeline iteration
    reads what an earlier one writes (:mod:`arraypart.poly.recurrences` then warns of
    none).  ``kept_reference``: why one of its references must stay as written (a
    subscript changes state, ``buf[w++]``, which a rewritten reference would
    evaluate more than once or not at all; the reference has no text of its own in
    the kernel file), and what the user may do: pragma-only too.
    ``written_by_reference``: an element is bound to a reference to non-const
    (:attr:`Access.by_reference`), through which a callee writes one memory: the
    array takes no read copies, whose stores must reach every copy.
    ``implied_bundle``: an off-chip array whose ``m_axi`` comes from no INTERFACE
    pragma but from the Vitis kernel flow's default, which the model assumes; the
    emitted kernel states it, since the project's Vivado flow would give the pointer
    ``ap_memory`` or a register port instead.
    ``kept_banking``: why its banking is what the text's own pragmas give (never
    searched, nothing emitted): a local of a function that a user header defines, whose
    text arraypart does not edit (no pragma written in the kernel file reaches it); an
    array field of a struct that a pragma of the user partitions whole (which arraypart
    does not model, and which a pragma of its own on the field would contradict).
    ``member``: an array field of a struct variable (a local, of the top or of a
    function it calls, or a file-scope one; not an argument of the top, which Vitis
    keeps aggregated): its path in the struct (``buf`` of ``w.buf``, ``in.buf`` of
    ``w.in.buf``).  Vitis disaggregates such a struct (UG1399, "Structs": internal and
    global structs are decomposed into their member elements), so the field is a
    memory of its own, which a pragma names as ``variable=w.buf`` (Vitis reads
    ``variable=`` as an expression, as UG1399's disaggregate example writes
    ``port=c.x``); its declaration is the struct's, so its references stay as written:
    pragma-only, unless routed.
    ``member_routed``: the emission gives this array field banks of its own beside the
    struct variable and rewrites its references as a local array's, so its scheme
    may be any (not pragma-only): the variable is a local of the top that the text
    names only through its fields, this one only with every subscript, and nothing
    but its accesses writes the field (:mod:`arraypart.frontend.routed`); the struct
    keeps the field, unused.
    ``volatile``: its elements are ``volatile``: the HLS tool makes every access that
    the text makes (no store forwarding, no dead store: :mod:`arraypart.poly.forwarding`).
    ``unaliased``: no name but its own may reach its memory in a call of the top (a
    ``__restrict`` pointer argument; a ``static`` array whose only references are plain
    subscripts in the top's text: :mod:`arraypart.frontend.unaliased`), so forwarding
    treats it as a local.
    ``register``: a pointer parameter of the top that the program only dereferences
    (element 0 alone: ``*p``, ``p[0]``, in the top or a function it calls) and that no
    INTERFACE pragma makes memory is a register port, of this mode: the one the
    emitted project's Vivado IP flow gives it (UG1399, "Default Interfaces for Vivado
    IP Flow": ``ap_none`` read, ``ap_vld`` written, ``ap_ovld`` both), or the register
    mode its pragma names.  No memory: banked as registers (any access pattern fits),
    nothing emitted for it.
    ``floating``: its elements are floating point (``float``, ``double``, a half), whose
    add or multiply takes the HLS tool several cycles: an element updated from its
    value of the previous iteration bounds the II even in a register
    (:meth:`arraypart.report.Report.warnings`).
    ``sampled_extent``: a pointer without a ``depth=`` whose accesses reach further
    with a size that nothing bounds (``Param.unbounded``): its extent follows the
    sizes' ranges rather than bounding them, one past the largest index reached
    (:mod:`arraypart.poly.sizes` sets it once they are known).
    """

    name: str
    shape: tuple[int, ...]
    elem_type: str
    elem_bits: int
    interface: bool
    coord: Coord
    const: bool = False
    static: bool = False
    storage: str | None = None
    storage_impl: str | None = None
    partitions: tuple[PartitionPragma, ...] = ()
    bundle: str | None = None
    partitionable: bool = True
    functions: tuple[str, ...] = ()
    header: bool = False
    file_scope: bool = False
    stencil: str | None = None
    fifo: str | None = None
    stream: bool = False
    reshapes: tuple[PartitionPragma, ...] = ()
    independent: bool = False
    kept_reference: str | None = None
    written_by_reference: bool = False
    implied_bundle: bool = False
    kept_banking: str | None = None
    volatile: bool = False
    unaliased: bool = False
    register: str | None = None
    floating: bool = False
    member: str | None = None
    member_routed: bool = False
    sampled_extent: bool = False

    def __post_init__(self):
        if self.bundle is not None and (self.partitionable or not self.interface):
            raise ValueError(f"array {self.name}: an off-chip array is an unpartitioned "
                             "interface")
        if self.stencil is not None and (self.partitionable or not self.interface):
            raise ValueError(f"array {self.name}: a stencil array is an unpartitioned "
                             "interface")
        if self.reshapes and self.partitionable:
            raise ValueError(f"array {self.name}: a reshaped array is not partitioned")
        if self.fifo is not None and (self.partitionable or self.bundle is not None
                                      or not (self.interface or self.stream)):
            raise ValueError(f"array {self.name}: a FIFO is an unpartitioned on-chip "
                             "interface or a stream")
        if self.register is not None and (
                self.shape != (1,) or self.partitionable or self.bundle is not None
                or self.fifo is not None or not self.interface):
            raise ValueError(f"array {self.name}: a register port is one unpartitioned "
                             "element of the interface, neither off-chip nor a FIFO")
        if not self.shape or any(d <= 0 for d in self.shape):
            raise ValueError(f"array {self.name}: shape {self.shape}")
        if self.storage is not None and self.storage not in PORT_MODELS:
            raise ValueError(f"array {self.name}: storage {self.storage!r}")
        if self.member_routed and self.member is None:
            raise ValueError(f"array {self.name}: only a struct's array field is routed "
                             "apart from its struct")

    @property
    def pragma_only(self) -> bool:
        """Its banking is emitted as ``array_partition`` pragmas alone (per_dim, no read
        copies, no rewritten references): the top's signature, a sub-function's text,
        shared by all its calls, or a header's or the file's declaration must stay as
        written, and so must a reference that could not be rewritten, and a struct's
        array field (its declaration is the struct's) that is not routed apart from its
        struct."""
        return (self.interface or bool(self.functions) or self.header or self.file_scope
                or self.kept_reference is not None
                or (self.member is not None and not self.member_routed))

    def word_index(self, index: tuple[Expr | None, ...]) -> tuple[Expr | None, ...]:
        """The word that element ``index`` lies in, per dimension: ``array_reshape``
        concatenates a dimension's partitions into one word per address, so with
        ``cyclic F`` element x is in word ``floor(x / F)``, with ``block F`` in word
        ``x mod ceil(n / F)``, with ``complete`` in word 0 (``dim=0``: every
        dimension); an unreshaped dimension keeps its index.  Accesses of one word in
        one cycle are one access of the memory's ports (reads), as the wide word is
        read or written whole."""
        out = list(index)
        for r in self.reshapes:
            for d in self._reshaped_dims(r):
                if out[d] is None:
                    continue
                if r.type == "cyclic":
                    out[d] = floordiv(out[d], r.factor)
                elif r.type == "block":
                    out[d] = mod(out[d], -(-self.shape[d] // r.factor))
                else:
                    out[d] = const(0)
        return tuple(out)

    def word_geometry(self) -> tuple[int, int]:
        """(words, bits per word) of the reshaped memory (:meth:`word_index`): a
        reshaped dimension of size n has ceil(n / F) words of F elements (``cyclic``,
        ``block``), or one word of n (``complete``)."""
        words, per_word = list(self.shape), [1] * len(self.shape)
        for r in self.reshapes:
            for d in self._reshaped_dims(r):
                factor = self.shape[d] if r.type == "complete" else min(r.factor,
                                                                        self.shape[d])
                words[d] = -(-words[d] // factor)
                per_word[d] *= factor
        return prod(words), self.elem_bits * prod(per_word)

    def _reshaped_dims(self, reshape: PartitionPragma) -> range | tuple[int]:
        """The dimensions ``reshape`` applies to (``dim=0``: every one)."""
        return range(len(self.shape)) if reshape.dim == 0 else (reshape.dim - 1,)

    def reshaped_dims(self, kind: str | None = None) -> frozenset[int]:
        """The dimensions (0-based) some ``array_reshape`` (of type ``kind``, when
        given) applies to."""
        return frozenset(d for r in self.reshapes if kind in (None, r.type)
                         for d in self._reshaped_dims(r))

    def counted_index(self, index: tuple[Expr | None, ...],
                      window: bool = False) -> tuple[Expr | None, ...]:
        """The address the ports see for an access of ``index``: element 0 for every
        window read of an ``array_stencil`` (``Access.window``: they are one read of
        the buffer's feed, and the array has no other access in their loop), the
        word for a reshaped array (:meth:`word_index`), else ``index`` itself."""
        if window:
            return tuple(const(0) for _ in index)
        return self.word_index(index) if self.reshapes else index

    @property
    def memory(self) -> bool:
        """An on-chip memory: neither off-chip (m_axi), a FIFO port nor a register
        port."""
        return self.bundle is None and self.fifo is None and self.register is None

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class PerCall:
    """The copy of a called function that holds an array it declares (not ``static``):
    Vitis inlines each call site or makes an RTL instance per call site, and each lane
    of an unrolled loop around a call runs a copy of its own, so the copy is ``call``
    (the inlined call that declared the array, ``Access.call``'s numbering) at the
    lane's values of ``iterators`` (the iterators of the loops around that call).
    Copies apart hold memories apart, banked alike
    (:attr:`arraypart.poly.model.LaneAccess.copy_of`).  ``shared``: an
    ``allocation`` pragma limits the function's instances, so the copies of every
    call in the pragma's scope run on shared instances: one memory with all their
    accesses."""

    call: int
    iterators: tuple[str, ...] = ()
    shared: SharedInstances | None = None


@dataclass(frozen=True, slots=True)
class SharedInstances:
    """``#pragma HLS allocation function instances=f limit=N``
    (:mod:`arraypart.frontend.allocation`): the calls of ``function`` in the text of
    the inlined call ``scope`` (``Access.call``'s numbering; 0: the top) share
    ``instances`` RTL instances; ``coord``: where the pragma's ``limit=`` is written."""

    function: str
    scope: int
    instances: int
    coord: Coord

    def cycles(self, calls: int) -> int:
        """The cycles ``calls`` calls of one iteration take on the instances:
        ``ceil(calls / instances)``."""
        return -(-calls // self.instances)


@dataclass(frozen=True, slots=True)
class Access:
    """One array reference ``A[e0][e1]...`` read or written by a statement.

    ``index[d]`` is the quasi-affine index in dimension d over the enclosing loops'
    iterators, or None when it is irregular there (``A[idx[i]]``, ``A[i*j]``): it may
    then be any index of that dimension.  ``ref_id`` is the ordinal of the reference's
    ``ArrayRef`` node (outermost node of a multi-dimensional reference) in a pre-order
    walk of the top function's body, so code generation finds the node again.  A
    compound assignment ``A[i] += x`` gives a read and a write with one ``ref_id``.
    ``field``: the struct member (first level) that ``A[i].f`` reads or writes, None
    for the whole element; on a disaggregated array each member is a memory of its own
    (:func:`member_views`).  ``window``: a read served by the window buffer of an
    ``array_stencil`` pragma (:mod:`arraypart.frontend.stencil`): in one iteration of
    its pipelined loop every window read of the array together is ONE read of its
    memory (the buffer's feed), whatever their indices.  ``by_reference``: the element
    is an argument bound to a reference to non-const (``std::swap(A[i], A[j])``),
    read and written by the call, the reference itself passed on.
    ``changes_state``: a subscript changes state (``buf[w++]``): its text, phased,
    has a constant bank only for a tool that proves the counter's value.
    ``foreign``: the dimensions whose subscript reads an iterator of an unrolled loop
    around a call whose one text holds the reference (``wr(buf, v)`` in a loop over
    v unrolled: each lane's v is a constant, but wr's text has v on a port).
    ``arguments``: ``(dimension, parameter, value)`` for each scalar parameter bound
    to a constant that the dimension's subscript takes its value from (``buf[v - w]``
    in ``rd(buf, 3, 1)``; through a local, ``int k = v - w``, or a caller's parameter
    passed on): the call's one text has the parameter on a port, so two calls with
    other values are two subscripts there even where their differences agree
    (:func:`text_variants`).
    ``same_value``: for a read with an irregular dimension, what every read of the
    same element in one iteration shares: the memory, the subscripts' trees and, per
    name they read, how many writes it has had and its affine value where it has one
    (``X[lo]`` twice, ``lo`` unchanged between: one element, which the HLS tool reads
    once).  Two reads with one key in one lane of one step read one element; None
    when nothing tells (a subscript that reads an array or calls a function).
    ``conditional``: an operand of ``?:``, ``&&`` or ``||`` whose condition is not
    affine holds it, so it runs on the data's values only (still counted wherever it
    may run; it never takes part in store forwarding, :mod:`arraypart.poly.forwarding`).
    ``narrowed``: a subscript's value passes through an integer type narrower than 32
    bits (``X[(unsigned char)(i + 1)]``, ``uint8_t j = i + 1; X[j]``): the front end
    drops a conversion the ranges make exact, but to the tool's alias analysis the
    truncated index is opaque (LLVM's BasicAA decomposes add, mul, shl, sext and zext,
    not trunc), so the element takes no part in store forwarding nor in telling writes
    apart (:func:`arraypart.poly.lanes.plain_reference`).
    ``partial``: it reaches part of the element, through a cast to a narrower type
    (``*(char *)&A[i]``, ``((char *)&A[i])[k]``): the tool's load or store is not of
    the element's type, so it takes no part in store forwarding either.
    ``call``: the inlined call whose text holds the reference (its number among the
    lowering's inlined calls; 0 for the top's own text): within one text the HLS tool
    sees how its names relate, across a call it does not (store forwarding,
    :mod:`arraypart.poly.forwarding`).
    ``per_call``: for an array that a called function declares (not ``static``), which
    copy of the function holds it (:class:`PerCall`; None for any other array).
    """

    array: str
    index: tuple[Expr | None, ...]
    kind: str
    ref_id: int
    coord: Coord
    field: str | None = None
    window: bool = False
    by_reference: bool = False
    changes_state: bool = False
    foreign: frozenset[int] = frozenset()
    arguments: tuple[tuple[int, str, int], ...] = ()
    same_value: tuple | None = None
    conditional: bool = False
    narrowed: bool = False
    partial: bool = False
    call: int = 0
    per_call: PerCall | None = None

    def __post_init__(self):
        if self.kind not in ACCESS_KINDS:
            raise ValueError(f"access kind {self.kind!r}")

    @property
    def regular(self) -> bool:
        return all(e is not None for e in self.index)


@dataclass(frozen=True, slots=True)
class Constraint:
    """``expr >= 0`` (op ``>=``) or ``expr == 0`` (op ``==``)."""

    expr: Expr
    op: str

    def __post_init__(self):
        if self.op not in (">=", "=="):
            raise ValueError(f"constraint op {self.op!r}")


Conjunction = tuple[Constraint, ...]


@dataclass(frozen=True, slots=True)
class Stmt:
    """A statement (assignment, call, declaration with initializer) and its accesses in
    evaluation order (reads of the right side before the write)."""

    accesses: tuple[Access, ...]
    coord: Coord


@dataclass(frozen=True, slots=True)
class If:
    """``if (cond) then else orelse``.

    ``cond`` is a disjunction of conjunctions of affine constraints over iterators, or
    None when the condition is not affine (data dependent): then both branches are
    taken as possibly executing (a safe over-approximation for banking).
    ``cond_accesses`` are the array reads in the condition itself.
    ``lane_key``: for a data-dependent condition inside the unrolled loops of a
    pipelined loop that takes one value in all their lanes (it reads no array, calls
    nothing, and names none of their iterators nor a scalar their bodies declare or
    write), a key that every lane's copy of this ``if`` shares; None otherwise.
    ``reads``: for a data-dependent condition, the scalars it reads that hold no affine
    value nor a condition the front end models, each with why (for a message), else
    empty.
    """

    cond: tuple[Conjunction, ...] | None
    then: tuple["Node", ...]
    orelse: tuple["Node", ...]
    coord: Coord
    cond_accesses: tuple[Access, ...] = ()
    lane_key: tuple | None = None
    reads: str = ""


@dataclass(frozen=True, slots=True)
class Loop:
    """``for (var = init; var <cmp> bound; var += step)``, normalized.

    step > 0:  var takes init0, init0+step, ... while var <= min(bound)   and var >= max(init)
    step < 0:  var takes init0, init0+step, ... while var >= max(bound)   and var <= min(init)
    where init0 = max(init) (step > 0) or min(init) (step < 0); ``bound`` is inclusive.
    When |step| > 1, ``init`` has exactly one expression (the stride's origin).

    ``pipeline_ii``: the target II of ``#pragma HLS pipeline`` (None: not pipelined).
    ``unroll``: None not unrolled, 0 complete, k > 1 a partial factor.
    ``name``: the label, else ``L<line>``.
    ``pipeline_off``: ``#pragma HLS pipeline off`` keeps Vitis from pipelining it;
    ``pipeline_inferred``: no pragma pipelines it, Vitis does by default
    (:mod:`arraypart.frontend.pipelining`).
    ``early_exit``: a ``break``, ``continue`` or ``return`` inside it, which the model
    ignores (every iteration runs to the end of its body: a superset), may leave it
    early: ``"iteration"``, an iteration may skip the rest of its body (a ``continue``,
    or the exit of a loop or function inside it); ``"loop"``, a ``break`` of its own or
    a ``return`` may end the loop before its last iteration.  ``skips``: a ``break``
    or ``continue`` of its own, or a ``return``, may skip the rest of its body (an exit
    of a loop inside it skips that loop's body only); ``breaks``: a ``break`` of its
    own is among them.  ``text``: which text of the HLS tool holds a function's loop
    (:func:`text_key`): None or ``()`` for the function's one text, shared by all its
    calls (its arguments are run-time values there); a key of its own for a template
    instantiation, and for each call of a function that ``#pragma HLS inline`` or
    ``function_instantiate`` copies per call (its constant arguments are constants
    there).  ``process``: the dataflow processes the loop is part of, outermost first:
    ``(region, k)`` for the k-th statement of a function body under ``#pragma HLS
    dataflow`` (``region`` numbers each lowering of such a body); the loops of two
    processes of one region run at the same time.
    ``call``: the inlined call whose text holds the loop (:attr:`Access.call`);
    ``call_aliases``: the arrays that two names of that text reach in that call (two
    array parameters bound to one array or to rows of one, a parameter and a global
    the text names, an element bound to a reference parameter, the object of a
    method): the HLS tool, which sees the text's names only, may not tell their
    accesses apart.
    ``ordered``: a fully unrolled loop outside pipelines whose lanes run one after
    another (:mod:`arraypart.frontend.ordered`): each lane is one call, which accesses
    what the previous lane's call writes, so the HLS tool issues the calls in their
    order (under ``dataflow``, processes joined by channels); its lanes are iterations
    in time, not lanes of one cycle.
    """

    var: str
    init: tuple[Expr, ...]
    bound: tuple[Expr, ...]
    step: int
    body: tuple["Node", ...]
    name: str
    coord: Coord
    pipeline_ii: int | None = None
    unroll: int | None = None
    pipeline_off: bool = False
    pipeline_inferred: bool = False
    early_exit: str | None = None
    skips: bool = False
    breaks: bool = False
    text: tuple | None = None
    process: tuple[tuple[int, int], ...] = ()
    call: int = 0
    call_aliases: frozenset[str] = frozenset()
    ordered: bool = False

    def __post_init__(self):
        if self.step == 0:
            raise ValueError(f"loop {self.name}: zero step")
        if not self.init or not self.bound:
            raise ValueError(f"loop {self.name}: missing bound")
        if abs(self.step) > 1 and len(self.init) != 1:
            raise ValueError(f"loop {self.name}: strided loop with min/max start")
        if self.pipeline_ii is not None and self.pipeline_ii < 1:
            raise ValueError(f"loop {self.name}: II {self.pipeline_ii}")
        if self.unroll is not None and (self.unroll < 0 or self.unroll == 1):
            raise ValueError(f"loop {self.name}: unroll {self.unroll}")
        if self.pipeline_off and self.pipeline_ii is not None:
            raise ValueError(f"loop {self.name}: pipelined with pipeline off")
        if self.pipeline_inferred and self.pipeline_ii is None:
            raise ValueError(f"loop {self.name}: inferred pipeline without an II")
        if self.ordered and (self.unroll != 0 or self.pipeline_ii is not None):
            raise ValueError(f"loop {self.name}: ordered lanes of a loop not fully "
                             "unrolled outside pipelines")


Node = Union[Loop, If, Stmt]


# The least value up to which the checker and the testbench replay a size that nothing
# bounds (``Param.unbounded``), and the runs of its body that a pipelined loop makes there
# (arraypart.poly.sizes: every loop runs): such a size never reaches an on-chip access's
# index or guard, so every value at which the loops run gives the same cycles' accesses;
# a few iterations of each loop exercise them, and more would only cost time.
UNBOUNDED_SAMPLE = 16

# The upper end report.json gives an unbounded size (DESIGN §5 ranges are [int, int]): the
# largest value of the widest signed C integer type, read as "every value"; its
# ``bound_by`` says that nothing bounds it.
UNBOUNDED_REPORTED = 2**63 - 1

# How a fresh trip count that its loop's guard bounds says so (its ``source`` begins with
# it): the most trips of any run of the loop, a claim the arrays do not narrow
# (:mod:`arraypart.poly.sizes`; frontend ``LoopLowering._record_trips``).
GUARD_SOURCE = "the guard of its iterations: "
# A fresh size's name is ``<text>@<place>`` (:func:`arraypart.frontend.fresh.size_name`):
# its source text and where it is written; UNKNOWN_TEXT where the front end has no text
# (an expression of an included file), whose place then names the file too.
SIZE_MARK = "@"
UNKNOWN_TEXT = "expression"


def size_words(name: str) -> str:
    """A run-time size as messages name it: ``'n'``; a fresh size by its text and
    place (``'round_val + 9' at 110:20``), or by its place alone where its text is
    unknown (``(the expression at aes_enc.c:110:20)``): the name itself is a key of the
    report, not words for a reader."""
    text, mark, place = name.rpartition(SIZE_MARK)
    if not mark:
        return f"'{name}'"
    return f"(the expression at {place})" if text == UNKNOWN_TEXT else f"'{text}' at {place}"


def point_words(point: Iterable[tuple[str, int]]) -> str:
    """Values of iterators and run-time sizes, for a message: ``i=3, 'len' at 3:23=6``
    (a fresh size in :func:`size_words`'s words, other names as they are)."""
    return ", ".join(f"{size_words(name) if SIZE_MARK in name else name}={value}"
                     for name, value in point)


@dataclass(frozen=True, slots=True)
class Param:
    """A run-time size: a scalar integer argument of the top function that loop bounds
    or indices use.  Every value ``low <= name <= high`` is possible; ``source`` says
    what bounds it (a ``LOOP_TRIPCOUNT``, a ``-D``, an array's extent).  The front end
    leaves ``high`` None (and ``source`` None) where nothing it reads bounds the size;
    the polyhedral pass then bounds it by the arrays it indexes.  A *fresh size*
    (:mod:`arraypart.frontend.fresh`) stands for a loop start or bound that is not
    affine; its ``low`` may be None as well until that pass bounds it.  A size that
    nothing bounds but that no on-chip access depends on is ``unbounded``: its proof
    holds for every value, and ``high`` is the value up to which it is replayed, one at
    which every loop runs (:data:`UNBOUNDED_SAMPLE`).  Later passes treat it
    as an outermost iterator over its range, so a proof over the iteration domain holds
    for every value of it at once."""

    name: str
    low: int | None
    high: int | None
    coord: Coord
    source: str | None
    lower_end: bool = False  # a fresh start: a larger value only shortens the loop
    unbounded: bool = False  # nothing bounds it: ``high`` is its sample
    # values run besides low, middle and high: the k-th of every size make one point at
    # which a pipelined loop runs that those miss (:mod:`arraypart.poly.probes`)
    probes: tuple[int, ...] = ()

    def __post_init__(self):
        if None not in (self.low, self.high) and self.low > self.high:
            raise ValueError(f"parameter {self.name}: empty range")

    def usual(self, call: int, start: bool) -> int:
        """Its value in the testbench's call ``call`` (1, 2, 3, and again): first the
        end of its range where the loops it bounds run longest, its ``high`` (its
        ``low`` for a ``start``, :func:`starts`), then the other end, then midway; a
        size without a ``low`` keeps ``high``.  The checker replays each of them."""
        if self.low is None:
            return self.high
        ends = (self.low, self.high) if start else (self.high, self.low)
        return (*ends, (self.low + self.high) // 2)[(call - 1) % 3]

    def holds(self, value: int) -> bool:
        """Whether ``low <= value <= high`` (an open end holds every value)."""
        return ((self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))


@dataclass(frozen=True, slots=True)
class Kernel:
    """A kernel: its top function's arrays and loop tree.

    ``name`` is the file's stem, ``top`` the top function.  ``defines`` are the integer
    constants after ``-D`` overrides; ``params`` the run-time sizes (:class:`Param`),
    the only free variables of loop bounds and indices besides iterators.  ``source`` is the front end's
    :class:`SourceUnit` (for code generation; nothing else may look inside).
    ``warnings`` are the front end's located warnings (``file:line:col: warning: ...``:
    constructs modelled conservatively, pragmas and directives ignored).
    ``overridden``: those of them that say a header's ``#define`` replaced a ``-D``
    value, which any later error repeats (its sizes may be the header's, not the
    user's).  ``returns_early``: a ``return`` before the end of a function (the top or a
    sub-function) may skip the statements after it, which the model runs anyway (a
    superset).  ``uncovered``: the cycles that calls outside the sizes' ranges make
    and no call inside makes as address tuples
    (:class:`arraypart.poly.cover.Uncovered`): the chosen banking must give each the
    banks and address differences of a cycle inside, else their located error
    (:func:`arraypart.poly.cover.check_banked`); ``outside_recurrences``: the
    recurrences through memory that only those calls make
    (:func:`arraypart.poly.cover.outside_recurrences`), which the model reports beside
    its own.
    """

    name: str
    top: str
    path: str
    arrays: tuple[Array, ...]
    body: tuple[Node, ...]
    coord: Coord
    defines: tuple[tuple[str, int], ...] = ()
    params: tuple[Param, ...] = ()
    source: Any = field(default=None, compare=False, repr=False)
    warnings: tuple[str, ...] = ()
    returns_early: bool = False
    overridden: tuple[str, ...] = ()
    uncovered: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    outside_recurrences: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    # ``arrays`` by name, derived at construction (a kernel may have thousands of
    # arrays, and passes look one up per access)
    by_name: Mapping[str, Array] = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "by_name", {a.name: a for a in self.arrays})

    def array(self, name: str) -> Array:
        return self.by_name[name]


@dataclass(frozen=True, slots=True)
class SourceUnit:
    """The parsed source, kept for code generation only.

    ``text`` is the kernel's text as clang read it (``-D`` overrides applied to its
    ``#define`` lines); ``func`` is the top function's syntax tree
    (:class:`arraypart.frontend.cnodes.FuncDef`, with byte ranges into ``text``) and
    ``globals`` the file-scope variables; ``preamble`` are the file's directives
    that the testbench repeats above the original, in order (its includes with the
    conditionals and macros they are read under, :func:`.frontend.kernel._preamble`),
    ``nested_includes`` the includes inside a declaration (a table's
    initializer), which stay where they are, and ``hoisted_blocks`` the namespace
    blocks that hold only directives (``namespace lib {`` / ``#include "ns.h"`` /
    ``}``), which the preamble repeats whole and the original leaves out, and
    ``macros_at_top`` the ``#define`` lines that restore, for the testbench's
    declaration of the top, the macros the file changes after it, and
    ``preamble_macros`` the positions, among the file's directive lines
    (``directivetext.scan_directives``), of the ``#define`` / ``#undef`` lines the preamble
    runs before its last include, which the original leaves out; ``redeclared`` the
    functions the file defines and a header declares first
    (:class:`arraypart.frontend.redeclared.Redeclared`); ``extra_defines`` the ``-D``
    values the file never defines; ``cxx``: the text was read as C++; ``directives`` the ``--directives``
    commands (:class:`arraypart.frontend.directives.Directive`); ``include_dirs`` the
    folders its includes were searched in (absolute: the kernel's own folder first);
    ``callees``: the syntax trees of the sub-functions the top reaches (inlined into
    the IR), in the order first called; ``local_decls``: the declaration of every array
    local to one of these functions, by its IR name (a sub-function's local may be
    renamed in the IR); ``own_main``: the byte offset of the file's own ``main``
    definition (a test beside the kernel), None when it has none; ``macros``: the
    names of the macros that the file and its own headers (not system or Vitis ones)
    define; ``shared_types``: the file-scope definitions the testbench takes out of
    ``namespace original`` (:mod:`arraypart.frontend.shared_types`); ``unsynthesized``:
    the byte ranges of the text that conditional compilation leaves out when Vitis
    synthesizes (``#ifndef __SYNTHESIS__`` blocks: C simulation only);
    ``header_definitions``: where the definitions of the kernel's own headers that the
    front end reads as the file's are written, (clang's file name, byte offset of the
    name): the functions, templates and methods the kernel reaches there, whose
    member accesses on an object are that object's (``q[k].put(i, v)``);
    ``renamed_at``: the byte offsets of the names that the testbench's copy of the
    text renames (:func:`arraypart.frontend.redeclared.renamed_sites`); ``unlinkable``:
    (coordinate, why) the testbench cannot link against the banked kernel
    (:func:`arraypart.frontend.shared_types.types_copied`), which ``compile`` raises,
    else ``()``.
    """

    text: str
    func: Any = field(compare=False, repr=False)
    globals: Any = field(default=(), compare=False, repr=False)
    preamble: tuple[str, ...] = ()
    extra_defines: tuple[tuple[str, int], ...] = ()
    cxx: bool = False
    directives: tuple = ()
    include_dirs: tuple[str, ...] = ()
    callees: Any = field(default=(), compare=False, repr=False)
    local_decls: Any = field(default_factory=dict, compare=False, repr=False)
    own_main: int | None = None
    macros: tuple[str, ...] = ()
    shared_types: tuple = ()
    unsynthesized: tuple[tuple[int, int], ...] = ()
    nested_includes: tuple[str, ...] = ()
    hoisted_blocks: tuple[str, ...] = ()
    macros_at_top: tuple[str, ...] = ()
    preamble_macros: tuple[int, ...] = ()
    redeclared: tuple = ()
    header_definitions: tuple[tuple[str, int], ...] = ()
    renamed_at: tuple[int, ...] = ()
    unlinkable: tuple = ()


def accesses(nodes: tuple[Node, ...]) -> Iterator[Access]:
    """Every access under ``nodes`` (statements, guards, loop bodies), in program order."""
    for n in nodes:
        if isinstance(n, Stmt):
            yield from n.accesses
        elif isinstance(n, If):
            yield from n.cond_accesses
            yield from accesses(n.then + n.orelse)
        else:
            yield from accesses(n.body)


def bundle_reads_merge(loop: Loop, array: Array) -> bool:
    """Whether the reads of one element in one iteration of ``loop`` (one
    ``Access.same_value``) are one transfer of ``array``'s m_axi bundle: where the
    loop writes no element of it (a read after a store may see the store, so the
    store is issued between the two reads; probe 36 F1)."""
    return array.bundle is None or not any(
        a.array == array.name and a.kind == "write" for a in accesses(loop.body))


def concurrent(loop: Loop) -> bool:
    """Whether ``loop``, reached outside any concurrent loop, is one (DESIGN §2): its
    iterations share cycles, as it is pipelined or unrolled, unless its lanes run one
    after another (``Loop.ordered``: then it is a sequential loop)."""
    return (loop.pipeline_ii is not None or loop.unroll is not None) and not loop.ordered


def loops(nodes: tuple[Node, ...]) -> Iterator[Loop]:
    """Every loop under ``nodes`` (loop bodies and both branches of ifs), outer first."""
    for n in nodes:
        if isinstance(n, Loop):
            yield n
            yield from loops(n.body)
        elif isinstance(n, If):
            yield from loops(n.then + n.orelse)


def skippable_writes(loop: Loop) -> frozenset[int]:
    """The ``ref_id`` of each write of ``loop`` that a ``break``, ``continue`` or
    ``return`` may skip: each in the body of it or of a loop inside it that ``skips``
    (a ``return`` marks every loop around it)."""
    return frozenset(a.ref_id for lp in (loop, *loops(loop.body)) if lp.skips
                     for a in accesses(lp.body) if a.kind == "write")


def header_variables(node: Node) -> frozenset[str]:
    """The variables ``node`` itself reads, not its body's: a loop's start and bound, an
    ``if``'s condition and guard accesses' indices, a statement's access indices."""
    if isinstance(node, Loop):
        exprs = node.init + node.bound
    elif isinstance(node, If):
        exprs = tuple(c.expr for conj in node.cond or () for c in conj)
        exprs += tuple(e for a in node.cond_accesses for e in a.index if e is not None)
    else:
        exprs = tuple(e for a in node.accesses for e in a.index if e is not None)
    return frozenset().union(*(expr_variables(e) for e in exprs))


def variables(nodes: tuple[Node, ...]) -> frozenset[str]:
    """Every variable that ``nodes`` and everything under them read."""
    used = set()
    for n in nodes:
        used |= header_variables(n)
        if not isinstance(n, Stmt):
            used |= variables(n.body if isinstance(n, Loop) else n.then + n.orelse)
    return frozenset(used)


def member_views(array: Array, items: list[T],
                 field: Callable[[T], str | None] = lambda a: a.field) -> list[list[T]]:
    """``items`` (the accesses of one cycle to ``array``) split by struct member, each
    view a memory that must serve its accesses in the cycle.

    Vitis disaggregates a struct array that is not a top-level argument (UG1399,
    "Structs": "Arrays of structs are implemented as multiple arrays, with a separate
    array for each member of the struct"), and the one banking of ``A`` applies to
    every member array.  So accesses to different members never compete: the view of
    member ``f`` holds the accesses to ``f`` and those to the whole element (which
    reach every member).  One view when :func:`member_arrays` is empty.
    """
    members = member_arrays(array, [field(a) for a in items])
    if not members:
        return [items]
    return [[a for a in items if field(a) in (f, None)] for f in members]


def member_arrays(array: Array, fields: list[str | None]) -> list[str]:
    """The members, in name order, that are memories of their own when accesses name
    ``fields`` (None: the whole element): none when ``array`` is a top-level argument
    (aggregated into one wide word) or fewer than two members are named."""
    members = sorted(set(fields) - {None})
    return [] if array.interface or len(members) < 2 else members


# Paths through a pipelined iteration's data-dependent ifs that are modelled one by one
# (DESIGN §2: the accesses of two branches never issue together); a loop with more
# counts every branch at once, an over-approximation.
MAX_BRANCH_PATHS = 16


def ordinal_keys(items: Iterable, key: Callable[[object], tuple]) -> list[tuple]:
    """``key(item)`` of each item with its ordinal among the items of that key: one
    reference's name in every copy of its loop's text (a macro puts several
    references at one coordinate, told apart by their order)."""
    seen: dict[tuple, int] = {}
    out = []
    for item in items:
        base = key(item)
        seen[base] = seen.get(base, -1) + 1
        out.append(base + (seen[base],))
    return out


def text_key(loop: Loop) -> tuple:
    """The loop's text (``Loop.text``): loops of one coordinate and one key are one
    piece of code to the HLS tool, whatever constants the IR's copies hold."""
    return (loop.coord, loop.text or ())


def site_names(loop: Loop) -> dict[int, tuple]:
    """Per access of ``loop`` (by id), its name as a site: the reference's coordinate,
    kind and member, and its ordinal among the loop's accesses of those (a macro puts
    several references at one coordinate); the same in every instance of the loop's
    text.  No array: a function called with ``a`` and then ``b`` has one text, whose
    reference reaches whichever array the call wires to it."""
    found = list(accesses(loop.body))
    return dict(zip(map(id, found), ordinal_keys(found, lambda a: (a.coord, a.kind,
                                                                    a.field))))


def text_variants(instances: Iterable[Loop],
                  index_of: Callable[[Access], tuple] = lambda a: a.index
                  ) -> dict[tuple, frozenset[int]]:
    """Per site name (:func:`site_names`) of the ``instances`` of one loop text, the
    dimensions where its subscript (``index_of``) is not one expression in the IR of
    every instance, or whose subscript names a parameter that the calls bind to other
    constants (``Access.arguments``); every dimension where some instance lacks the
    site; and its ``Access.foreign`` dimensions.  The HLS tool has one text for them all, so there
    the bank is a run-time value even where each instance's is a constant
    (``buf[v][i]`` in ``wr(buf, 0); wr(buf, 2)``).  The IR, not a run: an instance
    whose loop runs no iteration, or whose ``if`` on a constant argument never runs,
    still holds its subscripts."""
    instances = list(instances)
    seen: dict[tuple, list[tuple]] = {}
    foreign: dict[tuple, frozenset[int]] = {}
    for loop in instances:
        names = site_names(loop)
        own = _own_iterators(loop)
        for a in accesses(loop.body):
            name = names[id(a)]
            seen.setdefault(name, []).append(tuple(
                None if e is None else (substitute(e, own),
                                        tuple(x for x in a.arguments if x[0] == d))
                for d, e in enumerate(index_of(a))))
            foreign[name] = foreign.get(name, frozenset()) | a.foreign
    out = {}
    for name, indexes in seen.items():
        if len(indexes) < len(instances) or len({len(x) for x in indexes}) > 1:
            out[name] = frozenset(range(max(len(x) for x in indexes)))
        else:
            out[name] = frozenset(d for d in range(len(indexes[0]))
                                  if len({x[d] for x in indexes}) > 1) | foreign[name]
    return {name: dims for name, dims in out.items() if dims}


def _own_iterators(loop: Loop) -> dict[str, Expr]:
    """The iterators of ``loop`` and the loops in it, in pre-order, each to a name of
    its place (``#0``, ``#1``, ...): a callee's iterator is renamed where a caller's
    loop already uses its name (``i`` in one call, ``i_1`` in another), and is the
    same iterator of the one text."""
    found = [loop.var] + [n.var for n in loops(loop.body)]
    return {name: expr_var(f"#{k}") for k, name in enumerate(dict.fromkeys(found))}


def in_text(nodes: tuple[Node, ...], key: tuple) -> tuple[Node, ...]:
    """``nodes`` with ``key`` as the text of every loop whose text is not decided yet
    (those of the functions it calls have theirs)."""
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            n = replace(n, body=in_text(n.body, key),
                        text=key if n.text is None else n.text)
        elif isinstance(n, If):
            n = replace(n, then=in_text(n.then, key), orelse=in_text(n.orelse, key))
        out.append(n)
    return tuple(out)


def in_process(nodes: Iterable[Node], key: tuple[int, int]) -> list[Node]:
    """``nodes`` with the dataflow process ``key`` (``Loop.process``) outside the
    processes of every loop in them."""
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            n = replace(n, body=tuple(in_process(n.body, key)), process=(key,) + n.process)
        elif isinstance(n, If):
            n = replace(n, then=tuple(in_process(n.then, key)),
                        orelse=tuple(in_process(n.orelse, key)))
        out.append(n)
    return out


def branch_paths(loop: Loop) -> tuple[Loop, ...]:
    """``loop`` once per path through the data-dependent ``if``s of its iteration.

    In one pipeline iteration a data-dependent ``if`` runs one branch, so the
    accesses of its two branches never issue together (UG1399: mutually exclusive
    operations share a port; a store in one branch and a load in the other schedule
    at II 1).  A path keeps one branch of each such ``if`` (the other emptied, its
    condition's reads kept); the iteration's accesses are those of the worst path.
    Only an ``if`` with one instance per iteration qualifies, or one whose every
    instance takes the same branch: the loop is pipelined with no unroll factor of
    its own, and the ``if`` is outside its inner loops (each unrolled lane of those
    has an instance of its own) or its condition is one value in all their lanes
    (``If.lane_key``: one choice for every copy).  A branch without accesses adds no
    path (the other branch's path issues a superset).  Returns ``(loop,)`` when there
    is one path or more than :data:`MAX_BRANCH_PATHS`.
    """
    if loop.pipeline_ii is None or loop.unroll is not None:
        return (loop,)
    bodies = [_chosen(loop.body, dict(setting)) for setting in _lane_settings(loop.body)]
    count = sum(_path_count(body) for body in bodies)
    if count == 1 or count > MAX_BRANCH_PATHS:
        return (loop,)
    return tuple(replace(loop, body=path) for body in bodies for path in _paths(body))


def _lane_settings(nodes: tuple[Node, ...]) -> list[tuple[tuple[tuple, str], ...]]:
    """Every choice of one branch per ``lane_key`` (a branch that touches an array in
    some copy; with none, no choice); ``[()]`` when there is no such ``if``."""
    sides: dict[tuple, set[str]] = {}
    for node in _ifs(nodes):
        if node.lane_key is not None:
            found = sides.setdefault(node.lane_key, set())
            found.update(side for side, branch in (("then", node.then), ("else", node.orelse))
                         if _touches(branch))
    keys = [k for k, found in sides.items() if found]
    if len(keys) > MAX_BRANCH_PATHS:
        return [()]
    choices = [[(k, side) for side in sorted(sides[k])] for k in keys]
    settings = list(product(*choices))
    return settings if len(settings) <= MAX_BRANCH_PATHS else [()]


def _ifs(nodes: tuple[Node, ...]) -> Iterator[If]:
    for node in nodes:
        if isinstance(node, If):
            yield node
            yield from _ifs(node.then + node.orelse)
        elif isinstance(node, Loop):
            yield from _ifs(node.body)


def _chosen(nodes: tuple[Node, ...], setting: dict[tuple, str]) -> tuple[Node, ...]:
    """``nodes`` with each ``if`` whose ``lane_key`` ``setting`` holds keeping the
    chosen branch only (the other emptied)."""
    if not setting:
        return nodes
    out = []
    for node in nodes:
        if isinstance(node, Loop):
            node = replace(node, body=_chosen(node.body, setting))
        elif isinstance(node, If):
            side = setting.get(node.lane_key) if node.lane_key is not None else None
            then, orelse = _chosen(node.then, setting), _chosen(node.orelse, setting)
            node = replace(node, then=() if side == "else" else then,
                           orelse=() if side == "then" else orelse)
        out.append(node)
    return tuple(out)


def _path_count(nodes: tuple[Node, ...]) -> int:
    """The number of paths :func:`_paths` yields for ``nodes``."""
    return prod(_node_path_count(n) for n in nodes)


def _node_path_count(node: Node) -> int:
    if not isinstance(node, If):
        return 1
    if node.cond is not None:
        return _path_count(node.then) * _path_count(node.orelse)
    return sum(_path_count(b) for b in (node.then, node.orelse) if _touches(b)) or 1


def _touches(nodes: tuple[Node, ...]) -> bool:
    """Whether ``nodes`` access an array."""
    return next(accesses(nodes), None) is not None


def _paths(nodes: tuple[Node, ...]) -> list[tuple[Node, ...]]:
    """Every combination of the nodes' own paths, in program order."""
    return [tuple(choice) for choice in product(*(_node_paths(n) for n in nodes))]


def _node_paths(node: Node) -> list[Node]:
    if not isinstance(node, If):
        return [node]
    if node.cond is not None:
        return [replace(node, then=t, orelse=e)
                for t in _paths(node.then) for e in _paths(node.orelse)]
    paths = []
    if _touches(node.then):
        paths += [replace(node, then=t, orelse=()) for t in _paths(node.then)]
    if _touches(node.orelse):
        paths += [replace(node, then=(), orelse=e) for e in _paths(node.orelse)]
    return paths or [node]


def port_model(array: Array, ports: int) -> PortModel:
    """The port model of ``array``'s banks: its bind_storage type, else ``rom_<ports>p``
    for a const array, else the ``--ports`` default (1: ram_1p, 2: ram_t2p); an off-chip
    array has its bundle's AXI port, a FIFO interface its FIFO port, a register port
    its register."""
    if array.bundle is not None:
        return M_AXI_PORTS
    if array.fifo is not None:
        return FIFO_PORTS
    if array.register is not None:
        return REGISTER_PORTS
    if array.storage is not None:
        return PORT_MODELS[array.storage]
    if array.const:
        return PORT_MODELS["rom_1p" if ports == 1 else "rom_2p"]
    return PORT_MODELS[DEFAULT_PORTS[ports]]


def starts(kernel: Kernel) -> frozenset[str]:
    """The run-time sizes whose larger values shorten some loop and lengthen none: a
    fresh start (``Param.lower_end``), or one that ``init`` (a loop counting up) or
    ``bound`` (counting down) grows with, or the other one shrinks with: a loop runs
    ``(bound - init) / step + 1`` times (:class:`Loop`)."""
    shortens: set[str] = set()
    lengthens: set[str] = set()
    names = [p.name for p in kernel.params]
    for loop in loops(kernel.body):
        sign = 1 if loop.step > 0 else -1
        for ends, towards in ((loop.init, -sign), (loop.bound, sign)):
            for e in ends:
                for name in names:
                    move = difference(e, name, 1)
                    if move:
                        (lengthens if move * towards > 0 else shortens).add(name)
    return frozenset(p.name for p in kernel.params
                     if p.lower_end or (p.name in shortens and p.name not in lengthens))
