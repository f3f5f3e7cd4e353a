"""The top function's syntax tree (:mod:`.cnodes`) -> the IR's arrays and loop tree.

The lowering is one :class:`_Lowering` run, its methods in four modules: this one
(the driver, statements, scalars, calls), :mod:`.memories` (arrays and run-time sizes),
:mod:`.accesses` (a statement's accesses, in evaluation order) and :mod:`.loops` (loop
headers, counting, induction variables).  Statements become :class:`arraypart.ir.Stmt`
nodes with their accesses; an ``if`` or a ``switch`` (:mod:`.switches`) an
:class:`arraypart.ir.If` chain.

Calls of the file's own functions are inlined where they stand (:mod:`.calls`): the
callee's statements come before the statement that uses its result, its iterators get
fresh names where the caller's are taken, its loops are named ``function/label`` and
its references get ``ref_id`` values past the top function's.  A function whose body
opens with ``#pragma HLS pipeline`` is one pipelined iteration per call: its body
becomes a pipelined loop of one iteration (unless it already runs inside a pipeline).
A callee's integer scalars are followed in program order like the top's
(:mod:`.scalars`), from its arguments' values; the caller's come back after the call.
Run-time sizes and pointer extents (:mod:`.interfaces`) belong to the top function's
parameters; a callee's accesses through a parameter bound to one count for its extent.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Mapping

from .. import expr as E
from ..errors import Coord, KernelError, warning_text
from .. import ir
from ..ir import Access, Array, Conjunction, If, Loop, Node, Param, Stmt
from ..sourcetext import KEEP_BYTES
from . import allocation
from . import calls
from .accesses import AccessLowering
from .cases import LANE_FREE_NODES, LANE_FREE_UNARY, CaseLowering
from .calls import Binding, StreamPort
from .cexpr import (Bound, Scope, condition_dnf, condition_superset, held_truth,
                    quasi_affine)
from .clangtypes import points_at_elements
from . import cnodes as N
from . import interfaces as I
from . import scalars as S
from . import stencil
from . import switches
from .declarations import array_decl, refuse_array_typedefs
from .loops import ESCAPES, LoopLowering
from .looppragmas import Unpipelinable, check_unrollable
from .memories import MemoryLowering, stream_alias
from .pragmas import LOOP_DIRECTIVES, PragmaReader
from .routines import RoutineLowering

# Inlining copies a callee per call: a chain of calls deeper than this (C compilers nest
# far less in practice) or more inlined calls in all, each call doubling the next
# (f1 calls f2 twice, f2 calls f3 twice, ...), would exhaust the stack or the memory.
MAX_CALL_DEPTH = 64
MAX_INLINED_CALLS = 4096
FUNCTION_BODY_DIRECTIVES = ("pipeline",)


@dataclass(slots=True)
class _RangeLog:
    """One function text's tracked scalars (:func:`.scalars.tracked_scalars`): their
    types' ranges, their write sites, and the scopes each site ran in (by ``id``)."""

    symbol_suffix: str
    types: dict[str, Bound]
    sites: dict[str, list[N.Node | None]]
    scopes: dict[int, list[Scope]] = field(default_factory=dict)
    site_ids: frozenset[int] = field(init=False)

    def __post_init__(self):
        self.site_ids = frozenset(id(s) for found in self.sites.values() for s in found
                                  if s is not None)

    def symbol(self, name: str) -> str:
        """The symbol a data-dependent condition's superset writes for ``name``."""
        return name + self.symbol_suffix

    def ranges(self) -> dict[str, Bound]:
        """Every tracked scalar's value range, by its symbol."""
        runs = {name: [None if site is None else (site, self.scopes.get(id(site), []))
                       for site in sites] for name, sites in self.sites.items()}
        return {self.symbol(name): bound
                for name, bound in S.solve_ranges(runs, self.types).items()}


@dataclass(frozen=True, slots=True)
class Lowered:
    """``arrays``: parameters, file-scope arrays, locals, then the sub-functions'
    locals; ``body``: the loop tree with every call inlined; ``callees``: the
    sub-functions reached, in the order first called; ``local_decls``: the IR name of
    every array declared in a function body -> its declaration; ``params``: the
    run-time sizes the IR uses; ``warnings``: the lowering's located warnings;
    ``returns_early``: as :attr:`arraypart.ir.Kernel.returns_early`."""

    arrays: tuple[Array, ...]
    body: tuple[Node, ...]
    callees: tuple[N.FuncDef, ...]
    local_decls: dict[str, N.Decl]
    params: tuple[Param, ...] = ()
    warnings: tuple[str, ...] = ()
    returns_early: bool = False


def lower_function(func: N.FuncDef, globals_: tuple[N.Decl, ...], filename: str,
                   lines: list[str], defines: Mapping[str, int],
                   callees: Mapping[str, N.FuncDef | None] = {},
                   raised: frozenset[Coord] = frozenset(),
                   unsynthesized: tuple[tuple[int, int], ...] = ()) -> Lowered:
    """``func`` lowered, every call of ``callees`` (the file's other function
    definitions, by name) inlined; ``globals_`` are the file-scope variables.  A
    pipelined loop that holds a loop of variable trip count is not pipelined, as in
    Vitis: the function is lowered again without that pipeline, and a warning says so.
    The loops at ``raised``, which no pragma pipelines or unrolls, are lowered as
    pipelined at II 1 (Vitis's automatic pipelining of a short loop's parent,
    :mod:`.pipelining`).  ``unsynthesized``: the byte ranges of the text that
    conditional compilation leaves out (:attr:`arraypart.ir.SourceUnit.unsynthesized`)."""
    unpipelined: dict[Coord, str] = {}
    while True:
        try:
            lowered = _Lowering(func, globals_, filename, lines, defines, callees,
                                frozenset(unpipelined), raised, unsynthesized).run()
        except Unpipelinable as error:
            if error.pipelined in unpipelined:
                raise
            unpipelined[error.pipelined] = error.warning
            continue
        return replace(lowered, warnings=tuple(unpipelined.values()) + lowered.warnings)


class _Lowering(MemoryLowering, AccessLowering, RoutineLowering, LoopLowering,
                CaseLowering):
    """One lowering run; its mutable state (drafts, enclosing iterators) is private,
    shared by the methods of its parts (:mod:`.memories`, :mod:`.accesses`,
    :mod:`.loops`)."""

    def __init__(self, func, globals_, filename, lines, defines, callees, unpipelined,
                 raised, unsynthesized):
        self._func = func
        self._unsynthesized: tuple[tuple[int, int], ...] = unsynthesized  # text left out
        self._unpipelined: frozenset[Coord] = unpipelined  # loops Vitis cannot pipeline
        self._raised: frozenset[Coord] = raised  # loops Vitis pipelines by itself
        self._source = "\n".join(lines).encode(errors=KEEP_BYTES)
        self._globals = globals_
        self._constants: dict[str, int] = dict(defines)
        self._pragmas = PragmaReader(filename, lines, self._constants)
        self._ref_ids = {id(r): k for k, r in enumerate(func.array_refs)}
        self._next_ref = len(self._ref_ids)  # the first ref_id of an inlined body
        self._arrays: dict[str, Array] = {}
        self._iterators: list[str] = []  # the IR names of the enclosing loops' iterators
        self._frame_vars: list[str] = []  # the C names of the current function's ones
        self._ranges: dict[str, Bound] = {}
        self._temporaries: S.Values = {}  # scalars with an affine value here
        self._writes: dict[str, int] = {}  # per name, the bindings it has had so far
        self._aliased: dict[int, frozenset[str]] = {}  # by function: scalars written aliased
        # by (node, scalars) ids: the node, the scalars, those it may write (_written)
        self._written_by_node: dict[tuple[int, int], tuple] = {}
        self._declared_by_node: dict[int, tuple] = {}  # by node id: _declarations_in
        self._current_statement: N.Node | None = None  # see _stepping
        self._keyed = False  # some read has had a same_value key (accesses._same_value)
        self._call_id = 0  # which inlined call the current text is lowered for (0: the top)
        self._call_aliases: frozenset[str] = frozenset()  # ir.Loop.call_aliases of it
        self._per_call: dict[str, ir.PerCall] = {}  # ir.Access.per_call by array
        # C++ references bound to an array element, by name: the element they denote
        self._element_refs: dict[str, Binding] = {}
        self._opaque: S.Opaques = {}  # scalars without one, and why
        self._case_origins = 0  # the case origins bound so far (:mod:`.cases`)
        self._chosen: dict[int, bool] = {}  # Scope.chosen: the ?: arms lowered here
        self._scalars = S.integer_scalars(list(func.params) + list(func.nodes))
        self._types = S.integer_types(list(func.params) + list(func.nodes))
        self._range_logs: dict[int, _RangeLog] = {}  # by id of the function's FuncDef
        # the scalars that only their declarations write, by id of the FuncDef
        self._holders: dict[int, frozenset[str]] = {}
        self._integers: dict[int, frozenset[str]] = {}  # _plain_integers, by function
        self._first_write_sites: dict[int, dict[str, N.Node]] = {}  # _first_writes
        self._blocks: list[dict[str, tuple]] = []  # per open block: outer bindings
        self._followed = 0  # loop iterations being followed without building IR
        self._per_lane = 0  # fully unrolled bodies being lowered once per lane
        self._geometric_copies = 1  # copies of the body the geometric loops around make
        self._warnings: list[str] = []
        self._interfaces = I.interface_pragmas(func, self._pragmas)
        self._streams: frozenset[str] = frozenset()  # the current function's streams
        self._callee_streams: dict[Coord, frozenset[str]] = {}  # per function text
        # visible stream names -> (FIFO array, the streams they name: a prefix of its index)
        self._stream_ports: dict[str, StreamPort] = {}
        # a stream the top or a callee declares (by its place) -> its FIFO's IR name
        self._stream_names: dict[Coord, str] = {}
        self._sizes: dict[str, Coord] = {}
        self._size_sources: dict[str, str] = {}
        # per fresh trip count of a loop guarded by its condition: the most trips any
        # run of it makes (None: unbounded), over every lowering of its text, and its
        # range and source before any guard
        self._condition_trips: dict[str, tuple[int | None, tuple, str | None]] = {}
        # fresh sizes (.fresh): expression, scope, upper end, arrays it reads by C name
        self._fresh: dict[str, tuple[N.Node, Scope, bool, dict[str, str]]] = {}
        self._ends: dict[str, tuple] = {}  # enclosing iterators: (init, bound, step)
        self._reached: dict[str, list[tuple[E.Expr | None, dict[str, Bound]]]] = {}
        self._callees = callees
        self._calls: list[N.FuncDef] = [func]  # the chain of calls being inlined
        self._visible: dict[str, Binding] = {}  # C array names -> the memory they denote
        self._file_constants: dict[str, int] = {}
        self._file_arrays: dict[str, Binding] = {}
        # per function text, by its coordinate (a template's instantiations share
        # theirs; a header's text has no offset): the first definition reached and its
        # arrays
        self._callee_arrays: dict[Coord, tuple[N.FuncDef, dict[str, Binding]]] = {}
        self._array_decls: dict[str, N.Decl] = {}
        # a local array's declaration (by its place) -> its IR name: one C name may
        # declare arrays in two blocks of a function, each its own memory
        self._local_names: dict[Coord, str] = {}
        # a struct variable's declaration (by its place) -> its array fields, by the
        # names its text gives them (w.buf)
        self._struct_fields: dict[Coord, dict[str, Binding]] = {}
        self._functions: dict[str, list[str]] = {}  # array -> functions whose text uses it
        self._kept_references: dict[str, str] = {}  # array -> why a reference stays
        self._spans: dict[tuple[int, int], int] = {}  # a reference's text -> its node's id
        self._expression_spans: set[tuple[int, int]] = set()  # other expressions' texts
        self._pipelines = 0  # pipelined loops enclosing the current statement
        self._pipeline_coords: list[Coord] = []  # where they are, outermost first
        self._unmodelled_said: set[tuple[str, object]] = set()  # (struct field, pipeline)
        # the iterators of the unrolled loops (outside pipelines) enclosing it
        self._unrolled: list[str] = []
        # the iterators of the unrolled loops around the calls whose shared text the
        # current statement is in: run-time values there (ir.Access.foreign)
        self._foreign_lanes: frozenset[str] = frozenset()
        # per scalar of the current call whose constant value comes from the call's
        # constant arguments, the (parameter, value) pairs it comes from, the callers'
        # too (ir.Access.arguments)
        self._arguments: dict[str, frozenset[tuple[str, int]]] = {}
        # the unrolled loops inside the innermost pipeline around it: (C iterator, loop)
        self._lane_loops: list[tuple[str, N.For]] = []
        self._loops = 0  # loops enclosing it, in the current function
        # each break, continue and early return met: (keyword, call depth, loop depth)
        self._exits: list[tuple[str, int, int]] = []
        self._frame_start = 0  # where the current function's iterators start
        self._inlined_calls = 0
        self._dataflow_regions = 0  # the function bodies lowered under #pragma HLS dataflow
        self._function_pipeline: str | None = None
        self._windows: dict[str, str] = {}  # array -> the loop of its array_stencil window
        # the scalars that the expression being read steps in sequence (buf[w++])
        self._increments: frozenset[str] = frozenset()
        # the object of the method whose text is being lowered (None outside methods)
        self._object: calls.ImplicitObject | None = None

    def run(self):
        self._collect_constants()
        self._collect_sizes()
        self._collect_arrays()
        self._visible = {name: Binding(name) for name in self._arrays
                         if name not in self._stream_ports}  # a stream is no array name
        self._apply_array_pragmas(self._func.body, self._visible)
        self._range_log = self._function_range_log(self._func)
        body = _bound_guards(self._function_body(self._func), self._value_ranges())
        self._fix_extents()
        self._register_ports(body)
        by_reference = {a.array for a in ir.accesses(body) if a.by_reference}
        arrays = tuple(replace(a, functions=tuple(self._functions.get(a.name, ())),
                               written_by_reference=a.name in by_reference,
                               stencil=self._windows.get(a.name),
                               kept_reference=self._kept_references.get(a.name),
                               partitionable=a.partitionable and a.name not in self._windows)
                       for a in self._arrays.values())
        reached = tuple(first for first, _ in self._callee_arrays.values())
        local = {name: d for name, d in self._array_decls.items()
                 if not self._arrays[name].interface and name not in self._file_arrays}
        returns_early = any(kind == "return" for kind, _, _ in self._exits)
        return Lowered(arrays, body, reached, local, self._params(body),
                       tuple(self._warnings), returns_early)

    def _scope(self) -> Scope:
        """What names mean in the current function: its own iterators (a callee's may
        be renamed: its temporaries then map the C name to the IR one) and, in the top
        function, the run-time sizes."""
        sizes = frozenset(self._sizes) if len(self._calls) == 1 else frozenset()
        return Scope(frozenset(self._iterators[self._frame_start:]) | sizes,
                     self._constants, dict(self._ranges), dict(self._temporaries),
                     S.narrow(self._types), self._increments,
                     {name: why.truth for name, why in self._opaque.items()
                      if why.truth is not None}, dict(self._chosen))

    @contextmanager
    def _stepping(self, node: N.Node):
        """Reads inside ``node`` see the scalars it steps in sequence
        (:func:`.scalars.sequenced_increments`) at their values before its writes;
        ``_current_statement``: the statement, whose writes a read in it may come after
        (``(t = A[k], k = m, A[k])``)."""
        self._increments = S.sequenced_increments(node, self._scalars)
        self._current_statement = node
        try:
            yield
        finally:
            self._increments = frozenset()
            self._current_statement = None


    # ------------------------------------------------------------ statements

    def _items(self, items, region: int | None = None) -> list[Node]:
        """A block's statements; the scalars and pointers declared in it end with it
        (an outer scalar of the same name gets its binding back).  In a dataflow
        ``region`` each statement is a process of its own (``ir.Loop.process``)."""
        self._blocks.append({})
        visible, element_refs = self._visible, self._element_refs
        nodes: list[Node] = []
        items = list(items or ())

        def lowered_at(k: int) -> list[Node]:
            lowered = self._statement(items[k])
            return lowered if region is None else ir.in_process(lowered, (region, k))

        try:
            for k, item in enumerate(items):
                lowered = lowered_at(k)
                nodes.extend(lowered)
                guard = lowered[-1].cond if self._escape_guard(item) else None
                if guard is not None:  # the rest runs where the guard does not hold
                    with self._sizes_outside(guard):
                        rest = tuple(n for later in range(k + 1, len(items))
                                     for n in lowered_at(later))
                    nodes.append(If(guard, (), rest, item.coord))
                    break
        finally:
            for name, (value, opaque) in self._blocks.pop().items():
                self._bind(name, value, opaque)
            self._visible, self._element_refs = visible, element_refs
        return nodes

    @contextmanager
    def _sizes_outside(self, guard: tuple[Conjunction, ...]):
        """The top function's sizes narrowed to where ``guard`` fails while the
        statements after ``if (guard) return;`` are lowered (:func:`_outside`: ``if (n
        > 16 || n < 0) return;`` keeps n in [0, 16] there)."""
        sizes = {n for n in self._sizes if n not in self._temporaries} \
            if len(self._calls) == 1 else set()
        known = {n: self._ranges[n] for n in sizes}
        narrowed = _outside(guard, known)
        self._ranges.update(narrowed)
        try:
            yield
        finally:  # each end the guard set back, one narrowed since (a LOOP_TRIPCOUNT) kept
            for name, ends in narrowed.items():
                self._ranges[name] = tuple(
                    old if now == new else now
                    for old, new, now in zip(known[name], ends, self._ranges[name]))

    def _escape_guard(self, item: N.Node) -> bool:
        """``item`` is ``if (cond) break;`` (or ``continue``) in a loop, or ``if (cond)
        return;`` anywhere: the statements after it in the block run only where its
        condition, when affine (the lowered ``If``'s), does not hold (``if (j - k < 0)
        break; acc += r[j - k];`` reads r inside it; ``if (s < 0 || s > 15) return;``
        keeps ``buf[s]`` after it inside buf).  Later iterations after a ``break`` or
        ``return``, and the statements after the enclosing blocks, are still modelled
        as running (a superset: ``Kernel.returns_early``)."""
        if not (isinstance(item, N.If) and item.iffalse is None):
            return False
        escape = item.iftrue
        while isinstance(escape, N.Compound) and len(escape.items) == 1:
            escape = escape.items[0]
        if isinstance(escape, N.Return):
            return True
        return self._loops and isinstance(escape, N.Unsupported) and \
            escape.keyword in ESCAPES

    def _pointer(self, decl: N.Decl) -> list[Node] | None:
        """When ``decl`` is a pointer into memory (:func:`.calls.pointer_binding`), the
        statement of the reads its start makes (none when it makes none), the pointer
        now visible as that part of the array until its block ends; None for any other
        declaration.  Code generation rewrites the subscripts of a banked local array,
        not a pointer to it: there such a pointer is an error."""
        found = calls.pointer_binding(decl, self._calls[-1].nodes, self._visible,
                                      self._arrays, self._scope())
        if found is None:
            return None
        binding, evaluated = found
        rank = len(self._arrays[binding.array].shape) - len(binding.prefix)
        if rank > 1 and not binding.field and points_at_elements(decl.ctype):
            raise KernelError(decl.coord, (
                f"pointer '{decl.name}' views {rank}-dimensional array "
                f"'{binding.array}' as one dimension (a cast flattens it): arraypart "
                f"cannot tell its elements; write {binding.array}[...][...], or point "
                f"at a row ({decl.ctype.canonical_spelling.rstrip(' *')} "
                f"(*{decl.name})[...])"))
        if self._rewrites(self._arrays[binding.array]):
            what = "reference" if calls.array_reference(decl) else "pointer"
            raise KernelError(decl.coord, f"{what} '{decl.name}' into local array "
                                          f"'{binding.array}': write "
                                          f"{binding.array}[...] (arraypart rewrites the "
                                          "subscripts of the arrays it banks)")
        reads = tuple(a for n in evaluated for a in self._accesses(n))
        self._visible = {**self._visible, decl.name: binding}
        return [Stmt(reads, decl.coord)] if reads else []

    # ------------------------------------------------------------ scalars

    def _bind(self, name: str, value: E.Expr | None, opaque: S.Opaque | None) -> None:
        """``name`` now has the affine ``value``, or none (``opaque`` says why; None
        for an iterator, which is no scalar while its loop runs)."""
        self._temporaries.pop(name, None)
        self._opaque.pop(name, None)
        self._writes[name] = self._writes.get(name, 0) + 1
        if value is not None:
            self._temporaries[name] = value
        elif opaque is not None:
            self._opaque[name] = opaque

    def _declare(self, name: str, value: E.Expr | None, opaque: S.Opaque | None) -> None:
        """A declaration in the innermost open block: the outer binding of ``name``
        comes back when the block ends."""
        self._blocks[-1].setdefault(name, (self._temporaries.get(name),
                                           self._opaque.get(name)))
        self._bind(name, value, opaque)

    def _state(self) -> tuple[S.Values, S.Opaques]:
        return dict(self._temporaries), dict(self._opaque)

    def _restore(self, state: tuple[S.Values, S.Opaques]) -> None:
        self._temporaries, self._opaque = dict(state[0]), dict(state[1])

    def _written(self, node: N.Node) -> frozenset[str]:
        """The current function's scalars that ``node`` may write
        (:func:`.scalars.written`), walked once per node and function: a statement is
        asked again for every loop around it, every trial and every followed
        iteration.  The entry keeps ``node`` and the scalars, so their ids stay
        theirs."""
        key = (id(node), id(self._scalars))
        if key not in self._written_by_node:
            self._written_by_node[key] = (node, self._scalars, frozenset(
                S.written(node, self._scalars, self._callees)))
        return self._written_by_node[key][2]

    def _apply_effects(self, node: N.Node | None) -> None:
        """The scalar writes of an expression (see :func:`.scalars.statement_effects`)."""
        if node is None or not self._scalars:
            return
        self._log_writes(node)
        if self._keyed:  # a read keyed before this statement is told from one after it
            for name in self._written(node):
                self._writes[name] = self._writes.get(name, 0) + 1
        sources = self._argument_sources_of(node)
        scope = self._scope()
        written = self._written(node)
        for name in written & set(self._opaque):  # S++ keeps S opaque, not its cases
            self._opaque[name] = self._opaque[name].plain()
        for name, value in S.statement_effects(node, self._scalars, scope, self._callees):
            if sources:  # k = v - w: k's value may come from the call's arguments
                self._arguments[name] = self._arguments.get(name, frozenset()) | sources
            if isinstance(value, S.Opaque):
                cases = self._assigned_cases(node, name)
                self._bind(name, None, value if cases is None else replace(value, cases=cases))
            else:
                self._bind(name, value, None)

    def _declare_scalar(self, decl: N.Decl) -> None:
        truth = self._held_truth(decl)
        if decl.name not in self._scalars:
            # its initializer's writes (float t = k++), and a reference's aliasing
            # (int &r = k: k may change through r)
            self._apply_effects(decl)
            if decl.name in self._condition_holders():
                self._declare(decl.name, None, truth)
            return
        self._log_writes(decl)
        if decl.init is None:
            self._declare(decl.name, None, S.Opaque("is declared without a value",
                                                    decl.coord))
            return
        with self._stepping(decl):
            value = quasi_affine(decl.init, self._scope())
            cases = None if value is not None else self._initial_cases(
                decl.name, decl.init, decl.coord)
        self._apply_effects(decl)
        sources = self._argument_sources_of(decl.init)
        if sources:  # int k = v - w: k's value comes from the call's arguments
            self._arguments[decl.name] = sources
        else:
            self._arguments.pop(decl.name, None)
        if decl.static and not decl.ctype.const:
            # the initializer gives the first call's value only
            self._declare(decl.name, None, S.Opaque(
                "is static (each call starts from the value the last call left)",
                decl.coord))
            return
        self._declare(decl.name, value, None if value is not None else truth or S.Opaque(
            "is initialized with a value that is not affine", decl.coord, cases=cases))

    def _held_truth(self, decl: N.Decl) -> S.Opaque | None:
        """Why a scalar that only its declaration writes (:func:`.scalars.condition_holders`)
        has no affine value, with the condition its initializer gives it
        (:func:`.cexpr.held_truth`); None for any other declaration, or one whose
        condition is not affine."""
        if decl.init is None or decl.name not in self._condition_holders():
            return None
        truth = held_truth(decl.init, self._scope(), S.boolean(decl))
        return None if truth is None else S.Opaque(
            "holds a condition (0 or 1), not an affine value", decl.coord, truth)

    def _condition_holders(self) -> frozenset[str]:
        """:func:`.scalars.condition_holders` of the function text being lowered."""
        func = self._calls[-1]
        if id(func) not in self._holders:
            self._holders[id(func)] = S.condition_holders(func.body, func.nodes,
                                                          self._callees)
        return self._holders[id(func)]

    def _function_range_log(self, func: N.FuncDef) -> _RangeLog:
        """The value-range log of ``func``'s text (one per definition reached)."""
        if id(func) not in self._range_logs:
            excluded = frozenset(p.name for p in func.params) | frozenset(
                d.name for d in self._globals)
            types = S.tracked_scalars(func.nodes, excluded)
            self._range_logs[id(func)] = _RangeLog(
                f"{S.RANGE_MARK}{len(self._range_logs)}", types,
                S.write_sites(func.nodes, frozenset(types), self._callees))
        return self._range_logs[id(func)]

    def _log_writes(self, node: N.Node) -> None:
        """The scope each tracked write in ``node`` runs in (not while an iteration is
        only followed: its entry symbols have no range, and the real pass comes)."""
        if self._followed:
            return
        found = [n for n in N.walk(node) if id(n) in self._range_log.site_ids]
        if not found:
            return
        # ``scope`` holds the values before the statement: one of its writes that reads
        # a name another one writes (``a = 1, b = a``) reads it through its range
        written = {n.name if isinstance(n, N.Decl) else S.write_target(n) for n in found}
        scope = self._scope()
        scope = replace(scope, temporaries={name: value for name, value in
                                            scope.temporaries.items() if name not in written})
        for n in found:
            self._range_log.scopes.setdefault(id(n), []).append(scope)

    def _value_ranges(self) -> dict[str, Bound]:
        """Every tracked scalar's value range, by symbol, over the whole lowering."""
        return {symbol: bound for log in self._range_logs.values()
                for symbol, bound in log.ranges().items()}

    def _range_scope(self) -> Scope:
        """The scope with each opaque tracked scalar standing for its range symbol."""
        scope = self._scope()
        symbols = {name: self._range_log.symbol(name) for name in self._opaque
                   if name in self._range_log.types}
        return replace(scope, iterators=scope.iterators | frozenset(symbols.values()),
                       temporaries={**scope.temporaries,
                                    **{n: E.var(v) for n, v in symbols.items()}})

    def _warn_opaque(self, subscript: N.Node) -> None:
        """Say why a subscript through an opaque scalar, or a file-scope variable
        (:meth:`_file_variable`), is irregular (once a scalar and cause)."""
        if self._followed:
            return
        for n in N.walk(subscript):
            why = (self._opaque.get(n.name) or self._file_variable(n.name)
                   if isinstance(n, N.Id) else None)
            if why is None:
                continue
            self._warn_once(n.coord, f"{why.describe(n.name)}, so this subscript is not "
                                     "affine (assign it once per iteration from iterators "
                                     "and constants, or step it by a constant, to make it "
                                     "regular)")

    def _file_variable(self, name: str) -> S.Opaque | None:
        """Why ``name``, where it is a file-scope integer variable that no name of the
        current function hides and that is no constant, has no value: the model
        follows no write of one (the top's ``S = flag ? 2 : 1``, a helper's), so it
        may hold any value (its cases too, :mod:`.cases`, are not followed)."""
        decl = next((d for d in self._globals if d.name == name and not d.is_array
                     and d.ctype is not None and (d.ctype.referent or d.ctype).integer
                     is not None), None)
        if decl is None or name in self._scalars or name in self._constants \
                or name in self._temporaries:
            return None
        return S.Opaque("is a file-scope variable, whose values arraypart does not follow "
                        "(declare it in the top and pass it to the functions that read "
                        "it)", decl.coord)

    def _warn_once(self, coord: Coord, message: str) -> None:
        """A located warning, unless the same one was given already (a function's
        text is lowered at each of its calls)."""
        text = warning_text(coord, message)
        if text not in self._warnings:
            self._warnings.append(text)

    def _statement(self, node: N.Node) -> list[Node]:
        coord = node.coord
        if isinstance(node, N.Pragma):
            self._check_stray_pragma(node)
            return []
        if isinstance(node, N.Compound):
            return self._items(node.items)
        if isinstance(node, N.Label) and not isinstance(node.stmt, N.For):
            return self._statement(node.stmt)
        if isinstance(node, (N.Label, N.For)):
            loop, label = (node.stmt, node.name) if isinstance(node, N.Label) else (node, None)
            split = self._split_by_cases(loop, (loop.init, loop.cond, loop.next),
                                         lambda: self._exiting_loop(loop, label))
            return self._exiting_loop(loop, label) if split is None else split
        if isinstance(node, (N.If, N.Switch)):
            inlined = self._inlined(node.cond)
            lower = self._if if isinstance(node, N.If) else self._switch
            split = self._split_by_cases(node, (node.cond,), lambda: lower(node))
            return inlined + (lower(node) if split is None else split)
        if isinstance(node, N.Unsupported) and node.keyword in ESCAPES and self._loops:
            self._exits.append((node.keyword, len(self._calls), self._loops))
            return []  # the model runs every iteration to its end: a superset
        if isinstance(node, N.Unsupported):
            raise KernelError(coord, f"'{node.keyword}' is not supported in the top "
                                     "function (use for loops with affine bounds)")
        if isinstance(node, N.DeclList):
            stmts = []
            for d in node.decls:
                self._check_this_alias(d)
                if I.is_stream(d):
                    self._stream_alias(d)
                    continue
                pointer = self._pointer(d)
                if pointer is None:
                    pointer = self._element_reference(d)
                if pointer is not None:
                    stmts += pointer
                    continue
                if d.init is not None and not d.is_array:
                    self._check_reference(d)
                    with self._stepping(d):
                        stmts += self._inlined(d.init)
                        stmts += self._by_cases(d.init, d.coord)
                elif d.init is not None and not self._set_once(d):
                    with self._stepping(d):  # what an array's initializer reads
                        stmts += self._inlined(d.init)
                        stmts += [n for n in self._guarded_statements(d.init, d.coord)
                                  if not (isinstance(n, Stmt) and not n.accesses)]
                    self._apply_effects(d.init)
                declared = self._declared(d)
                if d.init is not None and calls.struct_handle(d, self._calls[-1].nodes):
                    bound = calls.object_fields(d.init, self._visible, d.name)
                    if not bound:
                        self._refuse_unknown_handle(d)
                    declared.update(bound)
                if declared:  # in scope until its block ends (W &r = w: r.buf too)
                    self._visible = {**self._visible, **declared}
                if not d.is_array:
                    self._declare_scalar(d)
                if d.init is not None:  # int w[3] = {...}; S s = {...};
                    for binding in self._declared(d).values():
                        stmts += self._initialized(d, binding.array)

            return stmts
        if isinstance(node, N.Empty):
            return []
        if isinstance(node, N.Return):
            if not any(node is last for last in self._calls[-1].body.items[-1:]):
                self._exits.append(("return", len(self._calls), self._loops))
            if node.expr is None:
                return []
            return self._inlined(node.expr) + self._guarded_statements(node.expr, coord)
        with self._stepping(node):
            inlined = self._inlined(node)
            stmts = self._by_cases(node, coord)
        self._apply_effects(node)
        return inlined + stmts

    def _set_once(self, decl: N.Decl) -> bool:
        """A local array that is ``static`` (or not the IR's): its initializer runs
        once, before the kernel."""
        name = self._local_names.get(decl.coord)
        return name is None or self._arrays[name].static

    def _initialized(self, decl: N.Decl, name: str) -> list[Node]:
        """The writes of every element of array ``name`` that the initializer of
        ``decl`` makes (C fills those it does not list with zeros; a struct's
        initializer sets each of its array fields), where they share cycles: in a
        pipelined or unrolled loop, or a pipelined function (``int w[3] = {in[i],
        in[i + 1], in[i + 2]};``), unless the array is ``static`` (set once) or
        ``const`` (a ROM's contents).  The declaration's text stays, so its
        references do too."""
        array = self._arrays[name]
        if not (self._pipelines or self._unrolled or self._function_pipeline) \
                or self._followed or array.static or array.const:
            return []  # a const array is a ROM's contents
        self._keep_as_written(name, f"its declaration at {decl.coord} initializes it")
        ref_id, self._next_ref = self._next_ref, self._next_ref + 1
        shape = array.shape
        return [Stmt(tuple(Access(name, tuple(E.const(i) for i in index), "write", ref_id,
                                  decl.coord, call=self._call_id,
                                  per_call=self._per_call.get(name))
                           for index in itertools.product(*map(range, shape))),
                     decl.coord)]

    def _exiting_loop(self, node: N.For, label: str | None) -> list[Node]:
        """:meth:`_loop`, its :class:`Loop` marked with how the ``break``,
        ``continue`` and ``return`` statements met in it may leave it
        (``Loop.early_exit``, ``skips``, ``breaks``)."""
        start = len(self._exits)
        lowered = self._loop(node, label)
        exits = self._exits[start:]
        if not exits:
            return lowered
        calls, depth = len(self._calls), self._loops + 1
        mine = [kind for kind, c, d in exits
                if c == calls and (kind == "return" or d == depth)]
        breaks = "break" in mine
        how = "loop" if breaks or "return" in mine else "iteration"
        return [replace(n, early_exit=how, skips=bool(mine), breaks=breaks)
                if isinstance(n, Loop) and n.coord == node.coord else n for n in lowered]

    # ------------------------------------------------------------ calls

    def _function_body(self, func: N.FuncDef) -> tuple[Node, ...]:
        """The body of ``func``; with ``#pragma HLS pipeline`` among the pragmas that
        open it, one pipelined loop of a single iteration around it (DESIGN §2: the
        whole call is one pipeline iteration)."""
        items = self._directives_first(list(func.body.items), FUNCTION_BODY_DIRECTIVES)
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        ii, _, _ = self._loop_pragmas(items[:header], unroll=False, at=func.coord)
        for node in items[:header]:
            self._check_stray_stencil(node)
        if ii is None or self._pipelines:
            return tuple(self._items(items[header:], self._dataflow_region(items)))
        var = self._fresh_iterator(f"{func.name}_call")
        outer = self._function_pipeline
        self._iterators.append(var)
        self._ranges[var] = (0, 0)
        self._pipelines += 1
        self._function_pipeline = func.name
        start = len(self._exits)
        try:
            body = tuple(self._items(items[header:]))
        finally:
            self._iterators.pop()
            del self._ranges[var]
            self._pipelines -= 1
            self._function_pipeline = outer
        # a return before the body's end skips the rest of the call's one iteration
        returns = any(kind == "return" and calls == len(self._calls)
                      for kind, calls, _ in self._exits[start:])
        loop = Loop(var, (E.const(0),), (E.const(0),), 1, body, func.name, func.coord, ii,
                    early_exit="iteration" if returns else None, skips=returns,
                    call=self._call_id, call_aliases=self._call_aliases)
        check_unrollable(loop, loop.body)
        return (loop,)

    def _dataflow_region(self, items: list[N.Node]) -> int | None:
        """A new region's number when ``#pragma HLS dataflow`` is among a function
        body's statements ``items`` (Vitis reads it anywhere there) and no pipeline
        holds the call (one pipeline iteration runs the whole body); else None."""
        pragmas = (self._pragmas.parse(n) for n in items if isinstance(n, N.Pragma))
        if self._pipelines or not any(p is not None and p.kind == "dataflow" for p in pragmas):
            return None
        self._dataflow_regions += 1
        return self._dataflow_regions

    def _inlined(self, node: N.Node) -> list[Node]:
        """The inlined bodies of the calls of the file's own functions in ``node``."""
        out: list[Node] = []
        for call in calls.known_calls(node, self._callees):
            out += self._inline(call)
        return out

    def _inline(self, call: N.FuncCall) -> list[Node]:
        """``call``'s callee lowered in its own scope: its array parameters bound to the
        caller's arrays, its scalars to their arguments' values (its own integer
        scalars followed from there, :mod:`.scalars`), its iterators fresh, a method's
        members those of the object it is called on (:func:`.calls.implicit_object`);
        the caller's scalars and blocks come back after it."""
        callee = self._callees[call.key]
        if callee is None:
            raise KernelError(call.coord, f"'{call.name}' is defined more than once "
                                          "(overloads): arraypart inlines sub-functions "
                                          "by name; give each its own name")
        self._inlined_calls += 1
        if len(self._calls) > MAX_CALL_DEPTH or self._inlined_calls > MAX_INLINED_CALLS:
            raise KernelError(call.coord, f"more than {MAX_CALL_DEPTH} nested calls or "
                                          f"{MAX_INLINED_CALLS} inlined calls in all: "
                                          "arraypart inlines every call; flatten the "
                                          "call tree")
        if callee.key in (f.key for f in self._calls):
            chain = " -> ".join(f.name for f in self._calls + [callee])
            raise KernelError(call.coord, f"recursive call of '{callee.name}' ({chain}): "
                                          "arraypart inlines every call, so recursion "
                                          "cannot be modelled; write it as a loop")
        args = calls.bind(call, callee, self._visible, self._arrays, self._scope())
        shared = self._shared_instances(callee)
        ports = self._bound_streams(call, callee)
        saved = (self._visible, self._state(), self._scalars, self._types, self._range_log,
                 self._blocks, dict(self._constants), self._ref_ids, self._frame_start,
                 self._frame_vars, self._stream_ports, self._streams, self._lane_loops,
                 self._foreign_lanes, self._arguments, self._object)
        self._object = self._method_object(call, callee)
        # the array fields of a struct variable the method is called on: this.buf
        own = calls.object_fields(call.args[0], self._visible, calls.THIS_OBJECT) if (
            callee.method and call.method) else {}
        aliases = calls.call_aliases(call, callee, {**args.arrays, **own}, self._visible,
                                     self._file_arrays, self._object)
        arguments = self._argument_sources(call, callee, args.constants)
        cased = self._argument_cases(call, callee, args.values)
        text = self._text_of(callee)
        if text[:1] != ("call",):  # one text for every lane of the loops around
            self._foreign_lanes = self._foreign_lanes | frozenset(self._unrolled)
        self._calls.append(callee)
        caller_id, self._call_id = self._call_id, self._inlined_calls
        caller_aliases, self._call_aliases = self._call_aliases, aliases
        caller_per_call, caller_refs = self._per_call, self._element_refs
        self._element_refs = {}  # the callee's own names
        self._lane_loops = []  # the callee's conditions name its own scalars
        try:
            self._constants.clear()
            self._constants.update(self._file_constants)
            self._constants.update(args.constants)
            self._arguments = arguments
            self._constants.update(callee.template_constants)
            held = {name: S.Opaque(
                "holds the condition its argument passes (0 or 1), not an affine value",
                call.coord, truth) for name, truth in args.conditions.items()}
            self._restore((args.values, {**held, **cased}))
            self._scalars = S.integer_scalars(list(callee.params) + list(callee.nodes))
            self._types = S.integer_types(list(callee.params) + list(callee.nodes))
            self._range_log = self._function_range_log(callee)
            self._blocks = []
            self._frame_start, self._frame_vars = len(self._iterators), []
            self._add_constants(n for n in callee.nodes if isinstance(n, N.Decl))
            locals_ = self._callee_locals(callee)
            self._per_call = {**self._per_call, **self._own_copies(locals_, shared)}
            self._visible = {**self._file_arrays, **locals_, **own, **args.arrays}
            self._streams = self._callee_streams[callee.coord]
            self._stream_ports = ports
            self._apply_parameter_pragmas(callee, args.arrays)
            refs = callee.array_refs
            self._ref_ids = {id(r): self._next_ref + k for k, r in enumerate(refs)}
            self._next_ref += len(refs)
            return list(ir.in_text(self._function_body(callee), text))
        finally:
            self._calls.pop()
            self._call_id, self._call_aliases = caller_id, caller_aliases
            self._per_call, self._element_refs = caller_per_call, caller_refs
            (self._visible, state, self._scalars, self._types, self._range_log, self._blocks,
             constants, self._ref_ids, self._frame_start, self._frame_vars,
             self._stream_ports, self._streams, self._lane_loops, self._foreign_lanes,
             self._arguments, self._object) = saved
            self._restore(state)
            self._constants.clear()
            self._constants.update(constants)

    def _own_copies(self, found: Mapping[str, Binding],
                    shared: ir.SharedInstances | None) -> dict[str, ir.PerCall]:
        """``ir.Access.per_call`` of the arrays ``found`` that the current call declares:
        this call at the iterators around it, on the instances it ``shared``
        (:meth:`_shared_instances`), for each that is not ``static`` (a ``static``
        array is one object, which every copy of the function shares).  A limited
        call that runs at once with others, of a function without such arrays, is a
        located warning: the model counts its calls by their arrays' accesses
        (:attr:`arraypart.poly.model.LoopInfo.instance_ii`)."""
        copy = ir.PerCall(self._call_id, tuple(self._iterators), shared)
        copies = {b.array: copy for b in found.values() if not self._arrays[b.array].static}
        if shared and not copies and (self._pipelines or self._unrolled) \
                and not self._followed:
            self._warn_once(shared.coord, (
                f"allocation limits '{shared.function}' to {shared.instances} "
                f"instance(s): the calls of it that one pipelined iteration (or the lanes "
                f"of an unrolled loop) makes beyond {shared.instances} wait for an "
                f"instance, which arraypart counts only for a function with arrays of "
                f"its own: the II it reports does not include it"))
        return copies

    def _shared_instances(self, callee: N.FuncDef) -> ir.SharedInstances | None:
        """The instances that an ``allocation`` pragma in the text of the current
        function limits ``callee``'s calls there to (:mod:`.allocation`); None when
        none does."""
        limit = allocation.limits(self._calls[-1], self._pragmas).get(callee.name)
        return None if limit is None else ir.SharedInstances(
            callee.name, self._call_id, limit.instances, limit.coord)

    def _method_object(self, call: N.FuncCall,
                       callee: N.FuncDef) -> calls.ImplicitObject | None:
        """The object ``callee``, a method, runs on at ``call`` (None: no method): one
        another call returns is an object arraypart cannot name, which may be inlined
        on only where it refers to no memory (:func:`.calls.returned_off_memory`)."""
        if not (callee.method and call.method):
            return None
        returned = N.without_casts(call.args[0])
        if not isinstance(returned, N.FuncCall):
            return calls.implicit_object(returned, self._object, self._visible,
                                         self._arrays, self._scope(),
                                         frozenset(p.name for p in self._func.params),
                                         self._element_refs)
        if not calls.returned_off_memory(returned, self._object, self._visible,
                                         self._arrays, self._scope(), self._callees,
                                         frozenset(self._file_arrays)):
            raise KernelError(call.coord, (
                f"method '{callee.name}' is called on what another call returns "
                "(q[i].f(..).g(..)), which may be part of an array: arraypart cannot "
                "tell which object that is, and would miss what the method writes in "
                "it; call it on the object itself"))
        return calls.ImplicitObject()

    def _argument_sources(self, call: N.FuncCall, callee: N.FuncDef,
                          constants: dict[str, int]) -> dict[str, frozenset]:
        """Per parameter of ``callee`` that ``call`` binds to a constant, the
        (parameter, value) pairs it comes from: its own, and those of the caller's
        scalars its argument names (``rd(buf, v - w)`` in a function given v and w)."""
        return {param.name: self._argument_sources_of(arg) | {(param.name,
                                                               constants[param.name])}
                for param, arg in zip(callee.params, calls.call_arguments(call, callee))
                if param.name in constants}

    def _argument_sources_of(self, node: N.Node) -> frozenset[tuple[str, int]]:
        """The (parameter, value) pairs the scalars that ``node`` names come from
        (none, without a walk, outside a call bound to constants)."""
        if not self._arguments:
            return frozenset()
        return frozenset().union(*(self._arguments[n] for n in N.identifiers(node)
                                   if n in self._arguments))

    def _text_of(self, callee: N.FuncDef) -> tuple:
        """The key of the text the HLS tool schedules this call's copy of ``callee`` in
        (``ir.Loop.text``): its own per call when a pragma among those that open its
        body inlines or instantiates it, the instantiation's for a template, else the
        function's one text."""
        for pragma in self._pragmas.of_function(callee):
            if pragma.kind == "function_instantiate" or (
                    pragma.kind == "inline" and not self._pragmas.off(pragma)):
                return ("call", self._inlined_calls)
        return ("instance", callee.instance) if callee.instance else ()

    def _bound_streams(self, call: N.FuncCall, callee: N.FuncDef) -> dict[str, StreamPort]:
        """The callee's stream parameters that name a FIFO port of the top: each bound
        to its argument's."""
        bound = {}
        for param, arg in zip(callee.params, N.passed(call)):
            port = self._stream_port(arg)
            if I.is_stream(param) and port is not None:
                bound[param.name] = port
        return bound

    def _stream_alias(self, decl: N.Decl) -> None:
        """A local stream declaration: a reference or pointer to a FIFO port of the
        top (``hls::stream<int> &s = in;``, ``*p = &in``) names that port for the rest
        of the function; a stream the top or a callee declares (a FIFO of its own,
        registered with the function's arrays) is its own port; any other is a stream
        arraypart does not count."""
        port = None if decl.init is None else self._stream_port(decl.init)
        own = self._stream_names.get(decl.coord)
        if port is None and own is not None:
            port = StreamPort(own)
        if port is not None:
            self._stream_ports = {**self._stream_ports, decl.name: port}
        else:
            self._stream_ports = {k: v for k, v in self._stream_ports.items()
                                  if k != decl.name}

    def _stream_port(self, node: N.Node) -> StreamPort | None:
        """The streams of a FIFO argument of the top that ``node`` names: a stream
        name, ``&s``, ``*s``, ``s[0]`` of a pointer to one stream, ``s[k]`` of an
        array of them (its index, quasi-affine or None: any stream)."""
        node, subscripts = calls.reference_chain(node)
        bound = self._stream_ports.get(node.name) if isinstance(node, N.Id) else None
        if bound is None:
            return None
        streams = len(self._arrays[bound.array].shape) - 1
        index = bound.index + tuple(quasi_affine(s, self._scope()) for s in subscripts)
        if len(index) == streams + 1 and index[-1] == E.const(0):
            index = index[:-1]  # p[0] of a pointer to one stream
        return StreamPort(bound.array, index) if len(index) <= streams else None

    def _callee_locals(self, callee: N.FuncDef) -> dict[str, Binding]:
        """The arrays ``callee`` declares (one memory per declaration, shared by every
        call: the one text is banked once), added with their pragmas on first use; its
        streams, local or parameters, are FIFOs, no memories (their names, in
        ``_callee_streams``, are the function's own: an array of another function may
        have one)."""
        if callee.coord not in self._callee_arrays:
            found: dict[str, Binding] = {}
            streams = {p.name for p in callee.params if I.is_stream(p)}
            refuse_array_typedefs(callee)
            for node in N.walk(callee.body):
                if isinstance(node, N.Decl) and I.is_stream(node):
                    streams.add(node.name)
                    if not stream_alias(node):
                        self._add_stream(node, local=True, owner=callee.name)
                elif isinstance(node, N.Decl) and node.is_array:
                    found[node.name] = Binding(self._add_array(
                        node, interface=False, owner=callee.name, taken=found, local=True))
                elif isinstance(node, N.Decl):
                    found.update(self._add_struct_fields(node, owner=callee.name))
            self._callee_arrays[callee.coord] = (callee, found)
            self._callee_streams[callee.coord] = self._streams = frozenset(streams)
            self._apply_array_pragmas(callee.body, {**self._file_arrays, **found}, frozenset(
                p.name for p in callee.params if calls.is_array_parameter(p)))
            if callee.start < 0:
                self._fix_header_locals(found)
        first, found = self._callee_arrays[callee.coord]
        if first is not callee:
            self._check_shared_locals(callee, first, found)
        return found

    def _fix_header_locals(self, found: Mapping[str, Binding]) -> None:
        """The arrays that a header's function declares keep the memory it gives them:
        arraypart edits the kernel file only, and no pragma written there can reach a
        local of another function's body."""
        for binding in found.values():
            array = self._arrays[binding.array]
            self._arrays[binding.array] = replace(array, kept_banking=(
                f"is declared in the text of a function of {array.coord.file}, which "
                "arraypart does not edit (define the function in the kernel file to "
                "let arraypart bank it)"))

    def _check_shared_locals(self, callee: N.FuncDef, first: N.FuncDef,
                             found: Mapping[str, Binding]) -> None:
        """The instantiations of one template share the arrays its text declares (one
        text, one banking pragma): each must declare them with the first one's shape
        and element type."""
        for node in N.walk(callee.body):
            if not (isinstance(node, N.Decl) and node.is_array) or I.is_stream(node):
                continue
            own = array_decl(node, interface=False)
            shared = self._arrays[self._local_names.get(node.coord, found[node.name].array)]
            if (own.shape, own.elem_type) != (shared.shape, shared.elem_type):
                raise KernelError(node.coord, f"array '{node.name}' of template "
                                              f"'{callee.name}' is {own.elem_type}"
                                              f"{list(own.shape)} in {callee.key} but "
                                              f"{shared.elem_type}{list(shared.shape)} in "
                                              f"{first.key}: the template's one text "
                                              "takes one banking; give the instantiations "
                                              "arrays of one shape, or make them "
                                              "separate functions")

    def _fresh_iterator(self, var: str) -> str:
        """``var``, or ``var_<k>`` when an enclosing loop's iterator is named so."""
        name, k = var, 1
        while name in self._iterators:
            name, k = f"{var}_{k}", k + 1
        return name

    def _check_this_alias(self, decl: N.Decl) -> None:
        """A reference or pointer to the object of a method inlined on an array element
        (``Q &self = *this``, ``Q *p = this``) is a located error: arraypart follows
        the element's members through ``this`` only, so accesses through it would go
        uncounted (and a write missed is wrong code)."""
        if (decl.init is None or decl.ctype is None or self._object is None
                or self._object.element is None
                or decl.ctype.kind not in N.POINTER_TYPE_KINDS):
            return
        init = N.without_casts(decl.init)
        while isinstance(init, N.UnaryOp) and init.op in ("*", "&"):
            init = N.without_casts(init.expr)
        if isinstance(init, N.Other) and init.what == N.THIS:
            raise KernelError(decl.coord, (
                f"'{decl.name}' names the object this method is called on, an element of "
                f"array '{self._object.element.array}': arraypart follows its members "
                f"through this only, not through '{decl.name}'; write this->member "
                "(or the member's name) instead"))

    def _element_reference(self, decl: N.Decl) -> list[Node] | None:
        """When ``decl`` is a C++ reference bound to an array element (``const P &next
        = s[i + 1];``), the statement of the reads its subscripts make (none when they
        make none), the reference now the element until its block ends: each use of
        its name accesses the element at the index the subscripts have here
        (``next.x``: its member x, as ``s[i + 1].x``), as a by-reference parameter
        bound to it would.  None for any other declaration.  The subscripts stay in
        the declaration's text, so the array keeps its references as written."""
        if decl.ctype is None or decl.ctype.kind not in N.REFERENCE_TYPE_KINDS or \
                decl.init is None or decl.is_array:
            return None
        found = calls.element_binding(decl.init, self._visible, self._arrays, self._scope())
        if found is None:
            return None
        binding, subscripts = found
        self._keep_as_written(binding.array, (
            f"reference '{decl.name}' at {decl.coord} is bound to its element"))
        reads = tuple(a for n in subscripts for a in self._accesses(n))
        self._element_refs = {**self._element_refs, decl.name: binding}
        return [Stmt(reads, decl.coord)] if reads else []

    def _check_reference(self, decl: N.Decl) -> None:
        """A C++ reference bound to an array element would hide later accesses."""
        if decl.ctype is None or decl.ctype.kind not in N.REFERENCE_TYPE_KINDS:
            return
        for ref in N.outer_array_refs(decl.init):
            name = N.ref_name(ref)
            if name in self._visible:
                raise KernelError(decl.coord, f"reference '{decl.name}' to an element of "
                                              f"array '{name}': arraypart cannot follow "
                                              "accesses through it; write the element "
                                              f"({name}[...]) where it is used")

    def _check_stray_stencil(self, node: N.Pragma) -> None:
        """Warn about an ``array_stencil`` that opens no loop body (Vitis ignores it)."""
        pragma = self._pragmas.parse(node)
        if pragma is not None and pragma.kind == stencil.DIRECTIVE and not self._followed:
            self._warnings.append(warning_text(self._pragmas.coord(pragma), (
                "array_stencil stands outside a loop body: Vitis HLS ignores it here "
                "(place it in the body of the pipelined loop that reads the array)")))

    def _check_stray_pragma(self, node: N.Pragma) -> None:
        self._check_stray_stencil(node)
        pragma = self._pragmas.parse(node)
        if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
            return
        function = self._calls[-1]
        if (pragma.kind == "pipeline" and self._pragmas.off(pragma)
                and any(n is node for n in function.body.items)):
            return  # the function is not pipelined: nothing to model
        raise KernelError(self._pragmas.coord(pragma),
                          f"#pragma HLS {pragma.kind} must stand in a loop body itself "
                          "(not in a block or branch inside it)")

    def _if(self, node: N.If) -> list[Node]:
        """An ``if``; a scalar keeps an affine value after it only when both branches
        leave it the same (:func:`.scalars.merge`).  The calls in its condition are
        inlined before it (:meth:`_statement`): the condition runs whichever branch is
        taken; an operand that ``&&``, ``||`` or ``?:`` skips where an affine condition
        fails runs under an ``if`` on it, before (:meth:`_guarded_statements`), one they
        skip on the data is counted as run (a superset).  A condition on an unrolled
        lane's value inside a call text the lanes share (``ir.Access.foreign``) is data
        dependent: in the one text it is a run-time value."""
        cond = condition_dnf(node.cond, self._scope())
        foreign = cond is not None and any(E.variables(c.expr) & self._foreign_lanes
                                           for conjunction in cond for c in conjunction)
        if foreign:
            cond = None  # a lane's value in a text all lanes share: run-time there
        guarded: list[Node] = []
        cond_accesses: tuple = ()
        if cond is None:
            reads, *guarded = self._guarded_statements(node.cond, node.coord)
            cond_accesses = reads.accesses
        within = (None, None) if cond is not None or foreign else tuple(
            condition_superset(node.cond, self._range_scope(), negate)
            for negate in (False, True))
        self._apply_effects(node.cond)
        before = self._state()
        then = _inside(within[0], tuple(self._statement(node.iftrue)), node.coord)
        after_then = self._state()
        self._restore(before)
        orelse = () if node.iffalse is None else _inside(
            within[1], tuple(self._statement(node.iffalse)), node.coord)
        self._merge_paths([after_then, self._state()], node.coord, "if")
        lane_key = self._lane_key(node.cond) if cond is None and not cond_accesses else None
        reads = "" if cond is not None or foreign else self._unmodelled_reads(node.cond)
        return guarded + [If(cond, then, orelse, node.coord, cond_accesses, lane_key, reads)]

    def _unmodelled_reads(self, cond: N.Node) -> str:
        """The local integer and ``bool`` scalars that the data-dependent ``cond``
        reads with neither an affine value nor a condition they hold, each with why
        (:attr:`arraypart.ir.If.reads`); '' when it reads none."""
        func = self._calls[-1]
        names = dict.fromkeys(n.name for n in N.walk(cond) if isinstance(n, N.Id)
                              and n.name not in self._temporaries)
        if not names:
            return ""
        scalars = self._plain_integers(func)
        return ", ".join(self._unmodelled(name, func) for name in names if name in scalars)

    def _plain_integers(self, func: N.FuncDef) -> frozenset[str]:
        """The names of the local integer and ``bool`` scalars ``func`` declares."""
        if id(func) not in self._integers:
            self._integers[id(func)] = frozenset(
                d.name for d in func.nodes if isinstance(d, N.Decl) and S.plain_integer(d))
        return self._integers[id(func)]

    def _first_writes(self, func: N.FuncDef) -> dict[str, N.Node]:
        """The first assignment or step of each scalar ``func`` writes by name, in the
        order of ``func.nodes``; found once per function."""
        if id(func) not in self._first_write_sites:
            sites: dict[str, N.Node] = {}
            for node in func.nodes:
                target = S.write_target(node)
                if target is not None:
                    sites.setdefault(target, node)
            self._first_write_sites[id(func)] = sites
        return self._first_write_sites[id(func)]

    def _unmodelled(self, name: str, func: N.FuncDef) -> str:
        """Why the local scalar ``name`` of ``func`` stands for no value or test here."""
        why = self._opaque.get(name)
        if name in self._condition_holders():
            if why is not None:
                return f"'{name}', which {why.reason} at {why.coord}"
            return (f"'{name}', which holds a test arraypart cannot model (its "
                    "initializer reads data, or is not affine in the iterators)")
        site = self._first_writes(func).get(name)
        if site is not None:
            return f"'{name}', which is written after its declaration at {site.coord}"
        if why is not None:
            return f"'{name}', which {why.reason} at {why.coord}"
        return (f"'{name}', which may be written after its declaration (through its "
                "address, a reference or a call)")

    def _lane_key(self, cond: N.Node) -> tuple | None:
        """For a data-dependent condition inside unrolled loops of a pipeline that is
        one value in all their lanes (``ir.If.lane_key``): the ``if``'s place, the
        outermost such loop (a macro or an ``.inc`` may write two at one place) and the
        first reference number of the function text being inlined (every lane's copy
        shares them); None otherwise.  One value: it reads no array, calls nothing,
        and names only the top's own integer scalars, none of which the function
        lets anything else write (an address taken, a reference bound, an argument
        that may be one) nor the outermost such loop declares or writes (header
        included), and that loop calls nothing (a call may write what it names).
        Not in an inlined callee, whose lanes may be the caller's too."""
        if not self._lane_loops or len(self._calls) > 1 or any(
                not isinstance(n, LANE_FREE_NODES) or (
                    isinstance(n, N.UnaryOp) and n.op not in LANE_FREE_UNARY)
                for n in N.walk(cond)):
            return None
        names = frozenset(n.name for n in N.walk(cond) if isinstance(n, N.Id))
        func = self._calls[-1]
        lanes = self._lane_loops[0][1]
        references = {p.name for p in func.params
                      if p.ctype is None or p.ctype.kind in N.POINTER_TYPE_KINDS}
        lane_names = ({var for var, _ in self._lane_loops} | references
                      | {d.name for d in N.walk(lanes) if isinstance(d, N.Decl)}
                      | S.written(lanes, names) | S.escaped(func.body, names))
        if not names <= self._scalars or names & lane_names or any(
                isinstance(n, N.FuncCall) or (isinstance(n, N.Other)
                                              and n.what.startswith("call of"))
                for n in N.walk(lanes)):
            return None
        return cond.coord, id(lanes), next(iter(self._ref_ids.values()), None)

    def _switch(self, node: N.Switch) -> list[Node]:
        """A ``switch`` as the if / else-if chain of its arms (:mod:`.switches`), the
        ``default`` arm its final else: an arm's condition ``x == c1 || x == c2`` is
        affine when the subject ``x`` is, else None (data dependent), the subject's
        reads then counted once, at the chain's head.  A scalar keeps an affine value
        after it only when every path that goes on past it (each arm that does not
        end in ``return``, and none without a ``default``) leaves it the same: an arm
        that returns is no path to what follows (a ``default: return -1;`` after
        ``case 1: nk = 4; break;`` leaves nk 4, not a value it was declared without).
        The calls in the subject are inlined before it (:meth:`_statement`)."""
        arms = switches.switch_arms(node)
        scope = self._scope()
        conds = [None if arm.default else condition_dnf(_matches(node.cond, arm), scope)
                 for arm in arms]
        affine = quasi_affine(node.cond, scope) is not None
        reads = () if affine else tuple(self._accesses(node.cond))
        self._apply_effects(node.cond)
        before = self._state()
        lowered, ends = [], []
        for arm in arms:
            self._restore(before)
            lowered.append(tuple(self._items(arm.items)))
            if not switches.ends_in_return(arm.items):
                ends.append(self._state())
        if not any(arm.default for arm in arms):
            ends.append(before)
        self._merge_paths(ends or [before], node.coord, "switch")
        chain = next((body for arm, body in zip(arms, lowered) if arm.default), ())
        for arm, cond, body in reversed(list(zip(arms, conds, lowered))):
            if not arm.default:
                chain = (If(cond, body, chain, arm.label.coord),)
        if reads and chain and isinstance(chain[0], If):
            return [replace(chain[0], cond_accesses=reads)]
        return ([Stmt(reads, node.coord)] if reads else []) + list(chain)

    def _merge_paths(self, ends: list[tuple[S.Values, S.Opaques]], coord: Coord,
                     construct: str) -> None:
        """The scalars after a branching ``construct`` whose paths end in the states
        ``ends``: a value every path leaves equal is kept, any other scalar is opaque
        (the reason of the first path that gives one, else the differing values)."""
        values, differ = dict(ends[0][0]), set()
        for state in ends[1:]:
            values, changed = S.merge(values, state[0])
            differ |= changed
        opaque: S.Opaques = {}
        for state in reversed(ends):
            opaque.update(state[1])
        for name, why in opaque.items():  # cases only where every path keeps them
            if any(state[1].get(name) is not why for state in ends):
                opaque[name] = why.plain()
                differ.add(name)  # or where each leaves it constants (_merged_cases)
        for name in differ:
            cases = self._merged_cases(ends, name, coord)
            if name not in opaque or cases is not None:
                opaque[name] = S.Opaque(f"takes different values on the branches of the "
                                        f"{construct}", coord, cases=cases)
        self._restore((values, {n: o for n, o in opaque.items() if n not in values}))



def _matches(subject: N.Node, arm: switches.Arm) -> N.Node:
    """The condition under which an arm other than the default runs, as C:
    ``subject == c1 || subject == c2 ...`` (nodes outside the text, for the
    lowering only)."""
    tests = [N.BinaryOp(value.coord, -1, -1, "==", subject, value) for value in arm.values]
    cond = tests[0]
    for test in tests[1:]:
        cond = N.BinaryOp(arm.label.coord, -1, -1, "||", cond, test)
    return cond


def _inside(within: tuple[Conjunction, ...] | None, body: tuple[Node, ...],
            coord: Coord) -> tuple[Node, ...]:
    """A data-dependent branch's ``body`` inside an affine ``if`` on ``within``, a
    condition that holds wherever the branch may run (its range symbols are resolved
    by :func:`_bound_guards`): the model keeps every iteration the data may choose and
    drops those it cannot."""
    if within is None or not body or () in within:
        return body
    return (If(within, body, (), coord),)


def _bound_guards(nodes: tuple[Node, ...], ranges: Mapping[str, Bound]
                  ) -> tuple[Node, ...]:
    """``nodes`` with every range symbol of the guards that :func:`_inside` wrote
    eliminated over its scalar's value range (:func:`.scalars.relax`); a guard that
    then holds everywhere is dropped."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Loop):
            out.append(replace(node, body=_bound_guards(node.body, ranges)))
        elif isinstance(node, If):
            then = _bound_guards(node.then, ranges)
            orelse = _bound_guards(node.orelse, ranges)
            cond = node.cond
            if cond is not None and any(S.RANGE_MARK in name for conj in cond for c in conj
                                        for name in E.variables(c.expr)):
                cond = S.relax(cond, ranges)
                if () in cond:
                    out.extend(then)
                    continue
            out.append(replace(node, cond=cond, then=then, orelse=orelse))
        else:
            out.append(node)
    return tuple(out)


def _outside(guard: tuple[Conjunction, ...], ranges: Mapping[str, Bound]
             ) -> dict[str, Bound]:
    """``ranges`` narrowed to where every disjunct of ``guard`` that is one constraint
    ``a*x + c >= 0`` on one of their variables fails: ``a*x <= -1 - c``, so ``x <=
    floor((-1 - c) / a)`` for ``a > 0`` and ``x >= ceil((1 + c) / -a)`` for ``a < 0``."""
    narrowed = dict(ranges)
    for conjunction in guard:
        form = E.affine_form(conjunction[0].expr) if len(conjunction) == 1 else None
        if form is None or conjunction[0].op != ">=" or len(form[0]) != 1 or \
                next(iter(form[0])) not in narrowed:
            continue
        (name, a), = form[0].items()
        low, high = narrowed[name]
        if a > 0:
            end = (-1 - form[1]) // a
            high = end if high is None else min(high, end)
        else:
            end = -((1 + form[1]) // a)
            low = end if low is None else max(low, end)
        narrowed[name] = (low, high)
    return narrowed
