"""The top function's syntax tree (:mod:`.cnodes`) -> the IR's arrays and loop tree.

Loops are normalized as :class:`arraypart.ir.Loop` documents: ``i < UB`` becomes the
inclusive bound ``UB - 1``, ``i > UB`` becomes ``UB + 1``, ``i != UB`` is ``<`` or ``>``
by the step's sign, and ``min``/``max`` bounds become tuples of terms.  A statement's
accesses are listed in evaluation order: subscripts before the reference they index,
the right side before the left, a compound assignment's read before its write.

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

import math
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import Coord, KernelError, warning_text
from ..ir import UNBOUNDED_SAMPLE, Access, Array, If, Loop, Node, Param, Stmt
from . import calls
from .calls import Binding
from .cexpr import (COMPARISONS, FLIPPED, Bound, Scope, condition_dnf, fold,
                    interval, min_max_terms, quasi_affine)
from . import cnodes as N
from . import fresh as F
from . import interfaces as I
from . import scalars as S
from . import switches
from .declarations import array_decl, integer_constant
from .pragmas import LOOP_DIRECTIVES, PragmaReader

POINTER_KIND = ci.TypeKind.POINTER
MEMBER = "member ref expr"
INCREMENTS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
ESCAPES = ("break", "continue")
UNIT_STEPS = (1, -1)
# Following a loop's iteration to find its induction variables lowers its body once
# more, so a nest of k loops that change scalars lowers its innermost body 2^k times;
# past this depth (far beyond real kernels' nests) the scalars are left opaque.
MAX_FOLLOWED_LOOPS = 8
# Inlining copies a callee per call: a chain of calls deeper than this (C compilers nest
# far less in practice) or more inlined calls in all, each call doubling the next
# (f1 calls f2 twice, f2 calls f3 twice, ...), would exhaust the stack or the memory.
MAX_CALL_DEPTH = 64
MAX_INLINED_CALLS = 4096

# What Vitis reads anywhere in a loop body, as if it opened it.
LOOP_BODY_DIRECTIVES = LOOP_DIRECTIVES + ("loop_tripcount",)
FUNCTION_BODY_DIRECTIVES = ("pipeline",)


@dataclass(frozen=True, slots=True)
class Lowered:
    """``arrays``: parameters, file-scope arrays, locals, then the sub-functions'
    locals; ``body``: the loop tree with every call inlined; ``callees``: the
    sub-functions reached, in the order first called; ``local_decls``: the IR name of
    every array declared in a function body -> its declaration; ``params``: the
    run-time sizes the IR uses; ``warnings``: the lowering's located warnings."""

    arrays: tuple[Array, ...]
    body: tuple[Node, ...]
    callees: tuple[N.FuncDef, ...]
    local_decls: dict[str, N.Decl]
    params: tuple[Param, ...] = ()
    warnings: tuple[str, ...] = ()


def lower_function(func: N.FuncDef, globals_: tuple[N.Decl, ...], filename: str,
                   lines: list[str], defines: Mapping[str, int],
                   callees: Mapping[str, N.FuncDef | None] = {}) -> Lowered:
    """``func`` lowered, every call of ``callees`` (the file's other function
    definitions, by name) inlined; ``globals_`` are the file-scope variables."""
    return _Lowering(func, globals_, filename, lines, defines, callees).run()


class _Lowering:
    """One lowering run; its mutable state (drafts, enclosing iterators) is private."""

    def __init__(self, func, globals_, filename, lines, defines, callees):
        self._func = func
        self._source = "\n".join(lines).encode()
        self._globals = globals_
        self._constants: dict[str, int] = dict(defines)
        self._pragmas = PragmaReader(filename, lines, self._constants)
        self._ref_ids = {id(r): k for k, r in enumerate(N.outer_array_refs(func.body))}
        self._next_ref = len(self._ref_ids)  # the first ref_id of an inlined body
        self._arrays: dict[str, Array] = {}
        self._iterators: list[str] = []  # the IR names of the enclosing loops' iterators
        self._frame_vars: list[str] = []  # the C names of the current function's ones
        self._ranges: dict[str, Bound] = {}
        self._temporaries: S.Values = {}  # scalars with an affine value here
        self._opaque: S.Opaques = {}  # scalars without one, and why
        self._scalars = S.integer_scalars(func.body)
        self._blocks: list[dict[str, tuple]] = []  # per open block: outer bindings
        self._followed = 0  # loop iterations being followed without building IR
        self._warnings: list[str] = []
        self._interfaces = I.interface_pragmas(func, self._pragmas)
        self._streams: set[str] = set()
        self._sizes: dict[str, Coord] = {}
        self._size_sources: dict[str, str] = {}
        # fresh sizes (.fresh): expression, scope, upper end, arrays it reads by C name
        self._fresh: dict[str, tuple[N.Node, Scope, bool, dict[str, str]]] = {}
        self._unbounded: set[str] = set()  # sizes replayed up to UNBOUNDED_SAMPLE
        self._ends: dict[str, tuple] = {}  # enclosing iterators: (init, bound, step)
        self._reached: dict[str, list[tuple[E.Expr | None, dict[str, Bound]]]] = {}
        self._callees = callees
        self._calls: list[N.FuncDef] = [func]  # the chain of calls being inlined
        self._visible: dict[str, Binding] = {}  # C array names -> the memory they denote
        self._file_constants: dict[str, int] = {}
        self._file_arrays: dict[str, Binding] = {}
        # per function text, by its offset (a template's instantiations share theirs):
        # the first definition reached and its arrays
        self._callee_arrays: dict[int, tuple[N.FuncDef, dict[str, Binding]]] = {}
        self._array_decls: dict[str, N.Decl] = {}
        self._functions: dict[str, list[str]] = {}  # array -> functions whose text uses it
        self._pipelines = 0  # pipelined loops enclosing the current statement
        self._unrolled = 0  # unrolled loops (outside pipelines) enclosing it
        self._loops = 0  # loops enclosing it, in the current function
        self._frame_start = 0  # where the current function's iterators start
        self._inlined_calls = 0
        self._function_pipeline: str | None = None

    def run(self):
        self._collect_constants()
        self._collect_sizes()
        self._collect_arrays()
        self._visible = {name: Binding(name) for name in self._arrays}
        self._apply_array_pragmas(self._func.body, self._visible)
        body = self._function_body(self._func)
        self._fix_extents()
        arrays = tuple(replace(a, functions=tuple(self._functions.get(a.name, ())))
                       for a in self._arrays.values())
        reached = tuple(first for first, _ in self._callee_arrays.values())
        local = {name: d for name, d in self._array_decls.items()
                 if not self._arrays[name].interface and name not in self._file_arrays}
        return Lowered(arrays, body, reached, local, self._params(body),
                       tuple(self._warnings))

    # ------------------------------------------------------------ declarations

    def _scope(self) -> Scope:
        """What names mean in the current function: its own iterators (a callee's may
        be renamed: its temporaries then map the C name to the IR one) and, in the top
        function, the run-time sizes."""
        sizes = frozenset(self._sizes) if len(self._calls) == 1 else frozenset()
        return Scope(frozenset(self._iterators[self._frame_start:]) | sizes,
                     self._constants, dict(self._ranges), dict(self._temporaries))

    def _collect_sizes(self) -> None:
        """The run-time sizes (module :mod:`.interfaces`): at least 0, at most the
        ``-D ARRAYPART_MAX_<name>`` value when one is given."""
        for param in self._func.params:
            if param.name and param.name not in self._constants and I.is_size_candidate(
                    param, self._func.body):
                self._sizes[param.name] = param.coord
                high = I.type_bound(param)
                self._ranges[param.name] = (0, high)
                if high is not None:
                    self._size_sources[param.name] = (
                        f"its type {param.ctype.spelling} ({param.ctype.canonical_spelling})"
                        if param.ctype.spelling != param.ctype.canonical_spelling
                        else f"its type {param.ctype.spelling}")
        for name, high in I.define_bounds(self._constants, list(self._sizes)).items():
            self._ranges[name] = (0, high)
            self._size_sources[name] = f"-D {I.MAX_DEFINE_PREFIX}{name}"

    def _params(self, body: tuple[Node, ...]) -> tuple[Param, ...]:
        """The sizes the IR uses, each with the range known so far (the polyhedral pass
        bounds the others by the arrays they index)."""
        used = _used_variables(body)
        written = _written_arrays(body)
        for name in self._fresh:
            self._fresh_range(name, written)
        params = []
        for name, coord in self._sizes.items():
            if name not in used:
                continue
            low, high = self._ranges[name]
            if None not in (low, high) and high < low:
                raise KernelError(coord, f"run-time size '{name}': {self._size_sources[name]} "
                                         f"leaves it no value from {low} up")
            params.append(Param(name, low, high, coord, self._size_sources.get(name),
                                lower_end=name in self._fresh and not self._fresh[name][2],
                                unbounded=name in self._unbounded))
        return tuple(params)

    def _fresh_range(self, name: str, written: set[str]) -> None:
        """A fresh size's range: its expression's interval over the sizes' final
        ranges and the values of the tables it reads (arrays not among those
        ``written``), within what a LOOP_TRIPCOUNT said; the least value of an upper
        end (:mod:`.fresh`) at least 0."""
        node, scope, upper, arrays = self._fresh[name]
        ranges = {**scope.ranges, **{n: self._ranges[n] for n in self._sizes
                                     if n != name}}
        tables = {c_name: F.table_interval(self._array_decls[array].init,
                                           math.prod(self._arrays[array].shape))
                  for c_name, array in arrays.items() if array not in written}
        low, high = F.node_interval(node, replace(scope, ranges=ranges), ranges, tables)
        known_low, known_high = self._ranges[name]
        if upper:
            low = 0 if low is None or low < 0 else low
        if high is not None and (known_high is None or high < known_high):
            text = name.split(F.NAME_MARK)[0]
            self._size_sources[name] = f"the values '{text}' takes"
        elif known_high is not None:
            high = known_high
        if None not in (low, high) and high < low:
            low = high  # the loop never runs: one value stands for all
        self._ranges[name] = (low, high)

    def _collect_constants(self) -> None:
        self._add_constants(self._globals)
        self._file_constants = dict(self._constants)
        self._add_constants(n for n in N.walk(self._func.body) if isinstance(n, N.Decl))

    def _add_constants(self, decls) -> None:
        for decl in decls:
            value = integer_constant(decl, self._scope())
            if value is not None:
                self._constants[decl.name] = value

    def _collect_arrays(self) -> None:
        """The top's array parameters, the file's arrays, the top's local arrays; a
        header's array that a name of the top shadows is none of the kernel's."""
        for param in self._func.params:
            if I.is_stream(param):
                self._streams.add(param.name)
            elif param.is_array or I.is_unsized(param):
                self._add_parameter(param)
        shadowing = {p.name for p in self._func.params} | {
            n.name for n in N.walk(self._func.body) if isinstance(n, N.Decl)}
        for node in self._globals:
            if node.is_array and not (node.start < 0 and node.name in shadowing):
                name = self._add_array(node, interface=False)
                if node.start < 0:  # declared in a header
                    self._arrays[name] = replace(self._arrays[name], header=True)
                self._file_arrays[node.name] = Binding(node.name)
        for node in N.walk(self._func.body):
            if isinstance(node, N.Decl) and I.is_stream(node):
                self._streams.add(node.name)
            elif isinstance(node, N.Decl) and node.is_array:
                self._add_array(node, interface=False)

    def _add_parameter(self, param: N.Decl) -> None:
        """A pointer or array parameter by its interface: off-chip (m_axi) or on-chip;
        a pointer's first dimension is its extent, fixed after the body is lowered."""
        iface = self._interfaces.get(param.name) or I.default_interface(param)
        unsized = I.is_unsized(param)
        if unsized:
            self._reached[param.name] = []
        self._add_array(param, interface=True, extent=1 if unsized else None)
        array = self._arrays[param.name]
        self._arrays[param.name] = replace(
            array, bundle=iface.bundle if iface.off_chip else None,
            partitionable=not (iface.off_chip or param.ctype.kind == POINTER_KIND))

    def _fix_extents(self) -> None:
        """Each pointer or unsized parameter's first dimension: its INTERFACE depth, else
        one past the largest index its accesses reach (1 when it is only dereferenced,
        or unused); accesses in callees count, through the parameters bound to it."""
        for name, accesses in self._reached.items():
            param = next(p for p in self._func.params if p.name == name)
            iface = self._interfaces.get(name) or I.default_interface(param)
            highs = self._index_highs(accesses, {})
            if None in highs and iface.off_chip and iface.depth is None:
                highs = self._sampled_highs(accesses)
            if iface.depth is not None:
                extent = iface.depth
            elif None in highs or not (highs or _only_dereferenced(self._func.body, name)):
                raise I.unknown_extent(name, iface.coord or param.coord, iface)
            else:
                extent = max([h + 1 for h in highs] + [1])
            array = self._arrays[name]
            self._arrays[name] = replace(array, shape=(extent,) + array.shape[1:])

    def _index_highs(self, accesses, sampled: dict[str, Bound]) -> list[int | None]:
        """The largest first index of each access (None: irregular or unbounded),
        the sizes in their ranges (those of ``sampled`` in theirs)."""
        sizes = {**{n: self._ranges[n] for n in self._sizes}, **sampled}
        highs = []
        for index, ranges, ends in accesses:
            ranges = {**ranges, **sizes}
            for var, (init, bound, step) in ends.items():  # again, from the sizes' now
                ranges[var] = self._iterator_range(init, bound, step, ranges)
            highs.append(None if index is None else interval(index, ranges)[1])
        return highs

    def _sampled_highs(self, accesses) -> list[int | None]:
        """An off-chip pointer's indices with the sizes that nothing bounds taken up to
        :data:`arraypart.ir.UNBOUNDED_SAMPLE`, those sizes marked unbounded (the
        polyhedral pass refuses them if an on-chip access depends on them): its extent
        is then the one the checker and testbench replay."""
        open_sizes = {n: (low or 0, UNBOUNDED_SAMPLE) for n, (low, high) in
                      self._ranges.items() if n in self._sizes and high is None}
        highs = self._index_highs(accesses, open_sizes)
        if None in highs:
            return highs
        used = set()
        for index, _, ends in accesses:
            used |= E.variables(index)
            for init, bound, _ in ends.values():
                used |= set().union(*(E.variables(e) for e in init + bound))
        for n in sorted(used & set(open_sizes)):
            self._ranges[n] = open_sizes[n]
            self._size_sources[n] = "nothing (no on-chip access depends on it)"
            self._unbounded.add(n)
        return highs

    def _add_array(self, decl: N.Decl, *, interface: bool, extent: int | None = None,
                   owner: str | None = None, taken: Mapping[str, Binding] = {}) -> str:
        """Add the array ``decl`` declares (``extent``: its first size, for a pointer);
        its IR name: its own, or for a local of the sub-function ``owner`` whose name
        another array has, ``<name>_<owner>`` (numbered until free).  ``taken``: the
        names already declared in its function."""
        name = decl.name
        if name in self._arrays and (owner is None or name in taken):
            first = self._array_decls[taken[name].array if name in taken else name]
            where = f" (first at {first.coord})" if first.coord != decl.coord else ""
            raise KernelError(decl.coord, f"array '{decl.name}' is declared twice{where}: "
                                          "arrays of one function and of the file need "
                                          "distinct names")
        k = 1
        while name in self._arrays:
            name, k = f"{decl.name}_{owner}" + (f"{k}" if k > 1 else ""), k + 1
        array = array_decl(decl, interface=interface, extent=extent)
        self._arrays[name] = replace(array, name=name) if name != decl.name else array
        self._array_decls[name] = decl
        return name

    def _apply_array_pragmas(self, body: N.Node, names: Mapping[str, Binding],
                             parameters: frozenset = frozenset()) -> None:
        """``array_partition``, ``bind_storage`` and the legacy ``resource core=`` of a
        memory in ``body`` (a function's); unknown directives are warned about.
        ``names``: the arrays its text names; ``parameters``: its array parameters,
        which other functions' arrays stand for (an ``array_partition`` of one is applied
        at each call, :meth:`_apply_parameter_partitions`)."""
        ranks = {c_name: len(self._arrays[b.array].shape) for c_name, b in names.items()}
        for node in N.walk(body):
            pragma = self._pragmas.parse(node) if isinstance(node, N.Pragma) else None
            if pragma is None:
                continue
            unknown = self._pragmas.unknown_directive(pragma)
            if unknown is not None:
                self._warnings.append(unknown)
            storage = None
            if pragma.kind == "resource" and pragma.option("variable") in ranks:
                storage = self._pragmas.resource_storage(pragma)
                if storage is None:
                    continue
            elif pragma.kind not in ("array_partition", "bind_storage"):
                continue
            if pragma.option("variable") in parameters and pragma.kind == "array_partition":
                continue
            if pragma.option("variable") in parameters:
                self._pragmas.error(pragma, f"{pragma.kind} on array parameter "
                                            f"'{pragma.option('variable')}' of a "
                                            "sub-function: place it where the array is "
                                            "defined (Vitis carries it into the calls)",
                                    "variable")
            name = names[self._pragmas.target(pragma, ranks)].array
            array = self._arrays[name]
            if pragma.kind == "array_partition":
                partition = self._pragmas.partition(pragma, len(array.shape))
                self._arrays[name] = replace(array, partitions=array.partitions + (partition,))
            else:
                kind, impl = storage or self._pragmas.storage(pragma)
                self._arrays[name] = replace(array, storage=kind, storage_impl=impl)

    def _apply_parameter_partitions(self, callee: N.FuncDef,
                                    bound: Mapping[str, Binding]) -> None:
        """An ``array_partition`` of an array parameter of ``callee`` partitions the
        array the call passes, as Vitis carries it to the caller's array: the whole
        array (a row or a pointer into one cannot be partitioned alone); the same
        partition twice is one, and one that another pragma contradicts is an error."""
        for node in N.walk(callee.body):
            pragma = self._pragmas.parse(node) if isinstance(node, N.Pragma) else None
            if pragma is None or pragma.kind != "array_partition" or (
                    pragma.option("variable") not in bound):
                continue
            variable = pragma.option("variable")
            binding = bound[variable]
            if binding.prefix or binding.offset != E.Const(0):
                self._pragmas.error(pragma, f"array_partition on '{variable}', which this "
                                            f"call gives part of array '{binding.array}' "
                                            "(a row or a pointer into it): Vitis partitions "
                                            f"whole arrays; place it where '{binding.array}' "
                                            "is defined", "variable")
            array = self._arrays[binding.array]
            partition = self._pragmas.partition(pragma, len(array.shape))
            written = [(p.type, p.factor, p.dim) for p in array.partitions]
            if (partition.type, partition.factor, partition.dim) in written:
                continue
            clash = next((p for p in array.partitions if 0 in (p.dim, partition.dim)
                          or p.dim == partition.dim), None)
            if clash is not None:
                self._pragmas.error(pragma, f"array_partition on '{variable}' partitions "
                                            f"array '{binding.array}' otherwise than the "
                                            f"pragma at {clash.coord}: give the array one "
                                            "partitioning", "variable")
            self._arrays[binding.array] = replace(
                array, partitions=array.partitions + (partition,))

    # ------------------------------------------------------------ statements

    def _items(self, items) -> list[Node]:
        """A block's statements; the scalars declared in it end with it (an outer
        scalar of the same name gets its binding back)."""
        self._blocks.append({})
        nodes: list[Node] = []
        try:
            for item in items or ():
                nodes.extend(self._statement(item))
        finally:
            for name, (value, opaque) in self._blocks.pop().items():
                self._bind(name, value, opaque)
        return nodes

    # ------------------------------------------------------------ scalars

    def _bind(self, name: str, value: E.Expr | None, opaque: S.Opaque | None) -> None:
        """``name`` now has the affine ``value``, or none (``opaque`` says why; None
        for an iterator, which is no scalar while its loop runs)."""
        self._temporaries.pop(name, None)
        self._opaque.pop(name, None)
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

    def _apply_effects(self, node: N.Node | None) -> None:
        """The scalar writes of an expression (see :func:`.scalars.statement_effects`)."""
        if node is None or not self._scalars:
            return
        for name, value in S.statement_effects(node, self._scalars, self._scope(),
                                                 self._callees):
            if isinstance(value, S.Opaque):
                self._bind(name, None, value)
            else:
                self._bind(name, value, None)

    def _declare_scalar(self, decl: N.Decl) -> None:
        if decl.name not in self._scalars:
            return
        if decl.init is None:
            self._declare(decl.name, None, S.Opaque("is declared without a value",
                                                    decl.coord))
            return
        self._apply_effects(decl.init)
        value = quasi_affine(decl.init, self._scope())
        self._declare(decl.name, value, None if value is not None else S.Opaque(
            "is initialized with a value that is not affine", decl.coord))

    def _warn_opaque(self, subscript: N.Node) -> None:
        """Say why a subscript through an opaque scalar is irregular (once a scalar
        and cause)."""
        if self._followed:
            return
        for n in N.walk(subscript):
            why = self._opaque.get(n.name) if isinstance(n, N.Id) else None
            if why is None:
                continue
            text = warning_text(n.coord, f"{why.describe(n.name)}, so this subscript is "
                                         "not affine (assign it once per iteration from "
                                         "iterators and constants, or step it by a "
                                         "constant, to make it regular)")
            if text not in self._warnings:
                self._warnings.append(text)

    def _statement(self, node: N.Node) -> list[Node]:
        coord = node.coord
        if isinstance(node, N.Pragma):
            self._check_stray_pragma(node)
            return []
        if isinstance(node, N.Compound):
            return self._items(node.items)
        if isinstance(node, N.Label):
            if isinstance(node.stmt, N.For):
                return self._loop(node.stmt, node.name)
            return self._statement(node.stmt)
        if isinstance(node, N.For):
            return self._loop(node, None)
        if isinstance(node, N.If):
            return self._inlined(node.cond) + [self._if(node)]
        if isinstance(node, N.Switch):
            return self._inlined(node.cond) + self._switch(node)
        if isinstance(node, N.Unsupported) and node.keyword in ESCAPES and self._loops:
            return []  # the model runs every iteration to its end: a superset
        if isinstance(node, N.Unsupported):
            raise KernelError(coord, f"'{node.keyword}' is not supported in the top "
                                     "function (use for loops with affine bounds)")
        if isinstance(node, N.DeclList):
            stmts = []
            for d in node.decls:
                if not d.is_array and d.init is not None:
                    self._check_reference(d)
                    stmts += self._inlined(d.init)
                    stmts.append(Stmt(tuple(self._accesses(d.init)), d.coord))
                if not d.is_array:
                    self._declare_scalar(d)
            return stmts
        if isinstance(node, N.Empty):
            return []
        if isinstance(node, N.Return):
            if node.expr is None:
                return []
            return self._inlined(node.expr) + [Stmt(tuple(self._accesses(node.expr)), coord)]
        inlined = self._inlined(node)
        stmt = Stmt(tuple(self._accesses(node)), coord)
        self._apply_effects(node)
        return inlined + [stmt]

    # ------------------------------------------------------------ calls

    def _function_body(self, func: N.FuncDef) -> tuple[Node, ...]:
        """The body of ``func``; with ``#pragma HLS pipeline`` among the pragmas that
        open it, one pipelined loop of a single iteration around it (DESIGN §2: the
        whole call is one pipeline iteration)."""
        items = self._directives_first(list(func.body.items), FUNCTION_BODY_DIRECTIVES)
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        ii, _, _ = self._loop_pragmas(items[:header], unroll=False)
        if ii is None or self._pipelines:
            return tuple(self._items(items[header:]))
        var = self._fresh_iterator(f"{func.name}_call")
        outer = self._function_pipeline
        self._iterators.append(var)
        self._ranges[var] = (0, 0)
        self._pipelines += 1
        self._function_pipeline = func.name
        try:
            body = tuple(self._items(items[header:]))
        finally:
            self._iterators.pop()
            del self._ranges[var]
            self._pipelines -= 1
            self._function_pipeline = outer
        loop = Loop(var, (E.const(0),), (E.const(0),), 1, body, func.name, func.coord, ii)
        _check_unrollable(loop, loop.body)
        return (loop,)

    def _inlined(self, node: N.Node) -> list[Node]:
        """The inlined bodies of the calls of the file's own functions in ``node``."""
        out: list[Node] = []
        for call in calls.known_calls(node, self._callees):
            out += self._inline(call)
        return out

    def _inline(self, call: N.FuncCall) -> list[Node]:
        """``call``'s callee lowered in its own scope: its array parameters bound to the
        caller's arrays, its scalars to their arguments' values (its own integer
        scalars followed from there, :mod:`.scalars`), its iterators fresh; the
        caller's scalars and blocks come back after it."""
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
        saved = (self._visible, self._state(), self._scalars, self._blocks,
                 dict(self._constants), self._ref_ids, self._frame_start, self._frame_vars)
        self._calls.append(callee)
        try:
            self._constants.clear()
            self._constants.update(self._file_constants)
            self._constants.update(args.constants)
            self._restore((args.values, {}))
            self._scalars = S.integer_scalars(callee.body)
            self._blocks = []
            self._frame_start, self._frame_vars = len(self._iterators), []
            self._add_constants(n for n in N.walk(callee.body) if isinstance(n, N.Decl))
            self._visible = {**self._file_arrays, **self._callee_locals(callee),
                             **args.arrays}
            self._apply_parameter_partitions(callee, args.arrays)
            refs = N.outer_array_refs(callee.body)
            self._ref_ids = {id(r): self._next_ref + k for k, r in enumerate(refs)}
            self._next_ref += len(refs)
            return list(self._function_body(callee))
        finally:
            self._calls.pop()
            (self._visible, state, self._scalars, self._blocks, constants, self._ref_ids,
             self._frame_start, self._frame_vars) = saved
            self._restore(state)
            self._constants.clear()
            self._constants.update(constants)

    def _callee_locals(self, callee: N.FuncDef) -> dict[str, Binding]:
        """The arrays ``callee`` declares (one memory per declaration, shared by every
        call: the one text is banked once), added with their pragmas on first use; its
        streams, local or parameters, are FIFOs, no memories."""
        if callee.start not in self._callee_arrays:
            found: dict[str, Binding] = {}
            self._streams.update(p.name for p in callee.params if I.is_stream(p))
            for node in N.walk(callee.body):
                if isinstance(node, N.Decl) and I.is_stream(node):
                    self._streams.add(node.name)
                elif isinstance(node, N.Decl) and node.is_array:
                    found[node.name] = Binding(self._add_array(
                        node, interface=False, owner=callee.name, taken=found))
            self._callee_arrays[callee.start] = (callee, found)
            self._apply_array_pragmas(callee.body, {**self._file_arrays, **found}, frozenset(
                p.name for p in callee.params if calls.is_array_parameter(p)))
        first, found = self._callee_arrays[callee.start]
        if first is not callee:
            self._check_shared_locals(callee, first, found)
        return found

    def _check_shared_locals(self, callee: N.FuncDef, first: N.FuncDef,
                             found: Mapping[str, Binding]) -> None:
        """The instantiations of one template share the arrays its text declares (one
        text, one banking pragma): each must declare them with the first one's shape
        and element type."""
        for node in N.walk(callee.body):
            if not (isinstance(node, N.Decl) and node.is_array) or I.is_stream(node):
                continue
            own = array_decl(node, interface=False)
            shared = self._arrays[found[node.name].array]
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

    def _check_reference(self, decl: N.Decl) -> None:
        """A C++ reference bound to an array element would hide later accesses."""
        if decl.ctype is None or decl.ctype.kind not in S.REFERENCE_KINDS:
            return
        for ref in N.outer_array_refs(decl.init):
            name = N.ref_name(ref)
            if name in self._visible:
                raise KernelError(decl.coord, f"reference '{decl.name}' to an element of "
                                              f"array '{name}': arraypart cannot follow "
                                              "accesses through it; write the element "
                                              f"({name}[...]) where it is used")

    def _check_stray_pragma(self, node: N.Pragma) -> None:
        pragma = self._pragmas.parse(node)
        if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
            return
        function = self._calls[-1]
        if (pragma.kind == "pipeline" and "off" in pragma.flags
                and any(n is node for n in function.body.items)):
            return  # the function is not pipelined: nothing to model
        raise KernelError(self._pragmas.coord(pragma),
                          f"#pragma HLS {pragma.kind} must stand in a loop body itself "
                          "(not in a block or branch inside it)")

    def _if(self, node: N.If) -> If:
        """An ``if``; a scalar keeps an affine value after it only when both branches
        leave it the same (:func:`.scalars.merge`).  The calls in its condition are
        inlined before it (:meth:`_statement`): the condition runs whichever branch is
        taken (one that ``&&`` or ``||`` may skip is counted as run: a superset)."""
        cond = condition_dnf(node.cond, self._scope())
        cond_accesses = () if cond is not None else tuple(self._accesses(node.cond))
        self._apply_effects(node.cond)
        before = self._state()
        then = tuple(self._statement(node.iftrue))
        after_then = self._state()
        self._restore(before)
        orelse = tuple(self._statement(node.iffalse)) if node.iffalse is not None else ()
        self._merge_paths([after_then, self._state()], node.coord, "if")
        return If(cond, then, orelse, node.coord, cond_accesses)

    def _switch(self, node: N.Switch) -> list[Node]:
        """A ``switch`` as the if / else-if chain of its arms (:mod:`.switches`), the
        ``default`` arm its final else: an arm's condition ``x == c1 || x == c2`` is
        affine when the subject ``x`` is, else None (data dependent), the subject's
        reads then counted once, at the chain's head.  A scalar keeps an affine value
        after it only when every path (each arm, and none without a ``default``)
        leaves it the same.  The calls in the subject are inlined before it
        (:meth:`_statement`)."""
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
            ends.append(self._state())
        if not any(arm.default for arm in arms):
            ends.append(before)
        self._merge_paths(ends, node.coord, "switch")
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
        for name in differ - set(opaque):
            opaque[name] = S.Opaque(f"takes different values on the branches of the "
                                    f"{construct}", coord)
        self._restore((values, {n: o for n, o in opaque.items() if n not in values}))

    # ------------------------------------------------------------ accesses

    def _accesses(self, node: N.Node) -> list[Access]:
        found: list[Access] = []
        self._collect(node, found)
        return found

    def _no_calls(self, node: N.Node | None, where: str) -> None:
        """Calls are inlined as statements: one in a condition or loop header is an
        error."""
        call = next(calls.known_calls(node, self._callees), None) if node else None
        if call is not None:
            raise KernelError(call.coord, f"call of '{call.name}' in {where}: arraypart "
                                          "inlines calls that are statements; assign its "
                                          "result to a variable first")

    def _collect(self, node: N.Node, out: list[Access]) -> None:
        if isinstance(node, N.FuncCall):
            self._call_arguments(node, out)
        elif isinstance(node, N.ArrayRef):
            self._reference(node, out, ("read",))
        elif isinstance(node, N.Assignment):
            self._collect(node.rvalue, out)
            kinds = ("write",) if node.op == "=" else ("read", "write")
            self._target(node.lvalue, out, kinds)
        elif isinstance(node, N.UnaryOp) and node.op in INCREMENTS:
            self._target(node.expr, out, ("read", "write"))
        elif isinstance(node, N.UnaryOp) and node.op == "*":
            self._dereference(node, out, ("read",))
        elif _element_member(node):
            self._member(node, out, ("read",))
        elif self._pointer_member(node) is not None:
            self._pointer_element(node, self._pointer_member(node), None, out, ("read",),
                                  node.name or None)
        else:
            for child in node.children():
                if child is not None:
                    self._collect(child, out)

    def _call_arguments(self, call: N.FuncCall, out: list[Access]) -> None:
        """A call's arguments: an array (or row) passed down is no access here, only its
        subscripts are read; a function arraypart cannot see may not receive one."""
        for arg in call.args:
            memory = calls.memory_argument(arg, self._visible, self._arrays)
            if memory is None:
                self._collect(arg, out)
                continue
            if call.key not in self._callees and call.name not in calls.MEMORY_ROUTINES:
                raise KernelError(arg.coord, f"array '{memory.base.array}' is passed to "
                                             f"'{call.name or 'a function'}', whose "
                                             "definition is not in the kernel file: "
                                             "arraypart cannot see its accesses (define "
                                             "it, or its template, in the kernel file, "
                                             "not in a header)")
            for node in memory.nodes():
                self._collect(node, out)

    def _target(self, node: N.Node, out: list[Access], kinds: tuple[str, ...]) -> None:
        if isinstance(node, N.Id) and node.name in self._frame_vars:
            raise KernelError(node.coord,
                              f"assignment to loop iterator '{node.name}' inside its loop")
        if isinstance(node, N.ArrayRef):
            self._reference(node, out, kinds)
        elif isinstance(node, N.UnaryOp) and node.op == "*":
            self._dereference(node, out, kinds)
        elif _element_member(node):
            self._member(node, out, kinds)
        elif self._pointer_member(node) is not None:
            self._pointer_element(node, self._pointer_member(node), None, out, kinds,
                                  node.name or None)
        else:
            self._collect(node, out)

    def _member(self, node: N.Other, out: list[Access], kinds: tuple[str, ...]) -> None:
        """``A[i].x``: member x of one element is read or written."""
        self._reference(node.parts[0], out, kinds, node.name or None)
        for part in node.parts[1:]:
            self._collect(part, out)

    def _pointer_member(self, node: N.Node) -> str | None:
        """``p`` when ``node`` is ``p->f`` (``p[0].f``) with ``p`` a visible array
        name, else None."""
        if not (isinstance(node, N.Other) and node.what == MEMBER):
            return None
        pointer = _first(node.parts)
        if isinstance(pointer, N.Id) and pointer.name in self._visible:
            return pointer.name
        return None

    def _reference(self, node: N.ArrayRef, out: list[Access],
                   kinds: tuple[str, ...], field: str | None = None) -> None:
        """``A[e0][e1]...``: the reads inside its subscripts, then its own accesses."""
        subscripts, base = [], node
        while isinstance(base, N.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        for subscript in subscripts:
            self._collect(subscript, out)
        coord = node.coord
        if isinstance(base, N.Other) and base.what == MEMBER:
            # s.f[k], A[i].f[k]: an array field is part of its struct's value, no memory
            # of its own; the access is the struct's (A[i], none for a scalar s).
            self._target(base, out, kinds)
            return
        name = base.name if isinstance(base, N.Id) else None
        if name in self._streams:
            return  # a FIFO: s[k].read() is no memory access
        if name not in self._visible:
            raise KernelError(coord, "only arrays declared with a fixed size can be "
                                     "indexed" + (f" ('{name}' is not one)" if name else ""))
        binding = self._visible[name]
        rank = len(self._arrays[binding.array].shape) - len(binding.prefix)
        if len(subscripts) != rank and not binding.field:
            raise KernelError(coord, f"array '{name}' has {rank} dimension(s) but is "
                                     f"indexed with {len(subscripts)} subscript(s)")
        self._element(binding, subscripts, self._ref_ids[id(node)], coord, out, kinds,
                      field)

    def _element(self, binding: Binding, subscripts: list[N.Node], ref_id: int,
                 coord: Coord, out: list[Access], kinds: tuple[str, ...],
                 field: str | None = None) -> None:
        """The accesses of one element of ``binding``, ``subscripts`` written on it."""
        scope = self._scope()
        index = binding.index(tuple(quasi_affine(s, scope) for s in subscripts))
        for subscript, e in zip(subscripts, index[len(binding.prefix):]):
            if e is None:
                self._warn_opaque(subscript)
        if binding.array in self._reached and not self._followed:
            self._reached[binding.array].append((index[0], dict(self._ranges),
                                                 dict(self._ends)))
        user = self._calls[-1].name if len(self._calls) > 1 else self._function_pipeline
        if user is not None and user not in self._functions.setdefault(binding.array, []):
            self._functions[binding.array].append(user)
        for kind in kinds:
            out.append(Access(binding.array, index, kind, ref_id, coord, field))

    def _dereference(self, node: N.UnaryOp, out: list[Access],
                     kinds: tuple[str, ...]) -> None:
        """``*p`` and ``*(p + e)`` on a visible array name are ``p[0]`` and ``p[e]``
        (:meth:`_pointer_element`)."""
        pointer = node.expr
        while isinstance(pointer, N.Cast):
            pointer = pointer.expr
        offset: N.Node = N.Constant(node.coord, -1, -1, 0)
        if isinstance(pointer, N.BinaryOp) and pointer.op == "+":
            pointer, offset = next(((p, o) for p, o in ((pointer.left, pointer.right),
                                                        (pointer.right, pointer.left))
                                    if isinstance(p, N.Id) and p.name in self._visible),
                                   (pointer, offset))
        if not (isinstance(pointer, N.Id) and pointer.name in self._visible):
            self._collect(node.expr, out)
            return
        self._pointer_element(node, pointer.name, offset, out, kinds)

    def _pointer_element(self, node: N.Node, name: str, offset: N.Node | None,
                         out: list[Access], kinds: tuple[str, ...],
                         field: str | None = None) -> None:
        """The element ``name[offset]`` (``offset`` None: 0), or its member ``field``,
        that ``node`` reaches (``*(p + e)``, ``p->f``), of a one-dimensional array or a struct's array field
        (:class:`.calls.Binding`).  Code generation rewrites subscripts only, so where it
        would have to rewrite this one (a banked local of the top, outside a function
        pipeline) it is an error."""
        binding = self._visible[name]
        array = self._arrays[binding.array]
        what = "'*'" if isinstance(node, N.UnaryOp) else "'->'"
        rank = len(array.shape) - len(binding.prefix)
        if rank != 1 and not binding.field:
            raise KernelError(node.coord, f"{what} on array '{name}' of {rank} "
                                          "dimensions: write its element with subscripts")
        if len(self._calls) == 1 and self._function_pipeline is None and not (
                array.interface):
            raise KernelError(node.coord, f"{what} on local array '{name}': write "
                                          f"{name}[...] (arraypart rewrites the "
                                          "subscripts of the arrays it banks)")
        if offset is None:
            offset = N.Constant(node.coord, -1, -1, 0)
        self._collect(offset, out)
        if id(node) not in self._ref_ids:
            self._ref_ids[id(node)] = self._next_ref
            self._next_ref += 1
        self._element(binding, [offset], self._ref_ids[id(node)], node.coord, out, kinds,
                      field)

    # ------------------------------------------------------------ loops

    def _loop(self, node: N.For, label: str | None) -> list[Node]:
        """``for (i = start; i <op> limit; i += step)`` as a normalized :class:`Loop`
        (after a statement of the reads of a start or bound that is a fresh size,
        :mod:`.fresh`: they run on entry, and again in every iteration).
        Further variables of the header (``for (int t = 0, i = 0; t < N; t++, i++)``)
        are scalars set before the loop and stepped at the end of each iteration.  A
        loop without a start (``while (i < N) { ...; i++; }``, ``for (; i < N; i++)``)
        counts from its counter's affine value before it; one without an increment
        steps the counter by a constant in its last statement."""
        coord = node.coord
        if node.cond is None:
            raise KernelError(coord, "a loop needs a condition that compares its iterator "
                                     "with a bound")
        for part in (node.init, node.cond, node.next):
            self._no_calls(part, "a loop header")
        items = node.stmt.items if isinstance(node.stmt, N.Compound) else [node.stmt]
        items = self._directives_first(list(items or ()), LOOP_BODY_DIRECTIVES)
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        if node.post_test:
            return self._counter_loop(node, label, items, header)
        try:
            if node.init is None:
                var, start, declared = self._counter(node.cond, items[header:])
            else:
                var, start, declared = self._loop_init(node.init, node.cond)
            if node.next is None:
                step, tail = self._last_step(items[header:], var, coord), []
            else:
                step, tail = self._loop_step(node.next, var)
            body = items[header:-1] if node.next is None else items[header:]
            if any(S.assigns(n, var) for n in body):
                raise _Uncountable(coord, f"the body changes the iterator '{var}'")
            bound_names = {n.name for n in N.walk(node.cond) if isinstance(n, N.Id)} - {var}
            bound_changes = any(S.written(n, self._scalars, self._callees) & bound_names
                                for n in body + tail)
        except _Uncountable:
            return self._counter_loop(node, label, items, header)
        if node.next is None:
            items = items[:-1]
        if var in self._frame_vars and not declared:
            raise KernelError(start.coord if node.init is None else node.init.coord,
                              f"loop iterator '{var}' is already used by an enclosing loop")
        pipeline_ii, unroll, pipeline_off = self._loop_pragmas(items[:header])
        header_reads: list[Access] = []
        try:
            if bound_changes:  # C tests the condition again after every iteration
                raise _Uncountable(coord, "the body changes a scalar of the condition")
            op, limit = self._loop_cond(node.cond, var)
        except _Uncountable:  # a data-dependent condition: a fresh number of trips
            init = min_max_terms(start, "max" if step > 0 else "min", self._scope())
            if init is None or len(init) != 1:
                return self._counter_loop(node, label, items, header)
            trips = self._trips(node)
            bound = (E.add(init[0], E.scale(step, E.add(trips, E.const(-1)))),)
            limit = node.cond
            header_reads = self._accesses(start) + self._accesses(limit)
        else:
            init, bound = self._loop_bounds(op, start, limit, step, node.cond,
                                            items[header:] + tail)
            if any(E.variables(e) & set(self._fresh) for e in init + bound):
                # a fresh size: the reads of its expression count
                header_reads = self._accesses(start) + self._accesses(limit)
        self._bound_sizes(init, bound, step, items[:header])
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1].name}/{name}"  # Vitis' location syntax
        # a callee's iterators, and one that C++ lets a header declaration shadow,
        # get a name no enclosing iterator has
        shadows = var in self._frame_vars
        ir_var = var if len(self._calls) == 1 and not shadows else self._fresh_iterator(var)
        self._blocks.append({})  # the header's declarations end with the loop
        try:
            self._header_scalars(node.init, var, declared)
            trip = S.trip_count(init, bound, step, self._ranges)
            if _escapes(items[header:]):
                trip = None  # the loop may stop early: no exit value
            self._frame_vars.append(var)
            if ir_var != var:
                self._temporaries[var] = E.var(ir_var)  # the callee's name for it
            try:
                with self._loop_frame(ir_var, self._iterator_range(init, bound, step),
                                      (init, bound, step), pipeline_ii, unroll):
                    body = self._loop_body(items[header:], tail, (var, ir_var), init,
                                           step, trip, name, coord)
                    if header_reads:
                        body = (Stmt(tuple(self._accesses(limit)), node.cond.coord),) + body
            finally:
                self._frame_vars.pop()
                if ir_var != var:
                    self._temporaries.pop(var, None)
            if not declared:
                exit_value = None if trip is None else E.add(init[0], E.scale(step, trip))
                self._bind(var, exit_value, S.Opaque(
                    f"keeps the last value of the iterator of loop '{name}'", coord))
        finally:
            for scalar, (value, opaque) in self._blocks.pop().items():
                self._bind(scalar, value, opaque)
        loop = Loop(ir_var, init, bound, step, body, name, coord, pipeline_ii, unroll,
                    pipeline_off)
        if pipeline_ii is not None:
            _check_unrollable(loop, loop.body)
        if header_reads:
            return [Stmt(tuple(header_reads), coord), loop]
        return [loop]

    @contextmanager
    def _loop_frame(self, ir_var: str, values: Bound, ends, pipeline_ii: int | None,
                    unroll: int | None):
        """Inside a loop over ``ir_var``: its range of ``values``, its (init, bound,
        step) ``ends``, and the counts of enclosing pipelines, unrolled loops and loops,
        restored on the way out."""
        pipelined = pipeline_ii is not None
        self._iterators.append(ir_var)
        self._ranges[ir_var] = values
        self._ends[ir_var] = ends
        self._pipelines += pipelined
        unrolled = unroll is not None and not self._pipelines
        self._unrolled += unrolled
        self._loops += 1
        try:
            yield
        finally:
            self._iterators.pop()
            del self._ranges[ir_var]
            del self._ends[ir_var]
            self._pipelines -= pipelined
            self._unrolled -= unrolled
            self._loops -= 1

    def _directives_first(self, items: list[N.Node], kinds: tuple[str, ...]
                          ) -> list[N.Node]:
        """A body's statements with its directives of ``kinds`` first, in their order:
        Vitis reads a loop's or a function's directives anywhere in its body."""
        def directive(n: N.Node) -> bool:
            pragma = self._pragmas.parse(n) if isinstance(n, N.Pragma) else None
            return pragma is not None and pragma.kind in kinds
        return [n for n in items if directive(n)] + [n for n in items if not directive(n)]

    def _trips(self, node: N.For) -> E.Expr:
        """A fresh size for the number of iterations of a loop whose condition
        depends on data (:mod:`.fresh`): LOOP_TRIPCOUNT bounds it, else it stays
        unbounded where no on-chip access depends on it (:mod:`arraypart.poly.sizes`)."""
        kind = "do" if node.post_test else "loop"
        name = f"trips of {kind}{F.NAME_MARK}{node.coord.line}:{node.coord.col}"
        if name not in self._sizes:
            self._sizes[name] = node.coord
            self._ranges[name] = (1 if node.post_test else 0, None)
        return E.var(name)

    def _counter_loop(self, node: N.For, label: str | None, items: list[N.Node],
                      header: int) -> list[Node]:
        """A loop arraypart cannot count (a data-dependent ``while`` or ``do``
        condition, a step that is not a constant, an iterator that is no scalar) as
        a loop over a counter of its own, ``0 <= n < T`` with ``T`` a fresh size
        (:meth:`_trips`): a superset of the iterations it runs.  Every scalar it
        changes is opaque inside it and after it (no induction is assumed), so
        subscripts through them are irregular; the header's reads count on entry
        and in every iteration, its increment's at the end of each."""
        coord = node.coord
        pipeline_ii, unroll, pipeline_off = self._loop_pragmas(items[:header])
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1].name}/{name}"
        counter = self._fresh_iterator(f"{'do' if node.post_test else 'loop'}_n{coord.line}")
        while counter in self._scalars or counter in self._sizes:
            counter = self._fresh_iterator(counter + "_")
        trips = self._trips(node)
        init, bound = (E.const(0),), (E.add(trips, E.const(-1)),)
        self._bound_sizes(init, bound, 1, items[:header])
        self._blocks.append({})  # the header's declarations end with the loop
        try:
            entry: list[Node] = []
            if node.init is not None:
                entry = self._statement(node.init)
            why = S.Opaque(f"changes in loop '{name}', whose iterations arraypart cannot "
                           "count", coord)
            changed = set()
            for part in items[header:] + [node.cond, node.next, node.init]:
                if part is not None:
                    changed |= S.written(part, self._scalars, self._callees)
            for scalar in sorted(changed):
                self._bind(scalar, None, why)
            cond_reads = tuple(self._accesses(node.cond))
            if cond_reads and not node.post_test:
                entry.append(Stmt(cond_reads, node.cond.coord))
            with self._loop_frame(counter, (0, None), (init, bound, 1), pipeline_ii, unroll):
                body = tuple(self._items(items[header:]))
                tail = tuple(self._statement(node.next)) if node.next is not None else ()
                for scalar in sorted(changed):
                    self._bind(scalar, None, why)
                if cond_reads:
                    tail += (Stmt(tuple(self._accesses(node.cond)), node.cond.coord),)
        finally:
            for scalar, (value, opaque) in self._blocks.pop().items():
                self._bind(scalar, value, opaque)
        for scalar in sorted(changed):
            self._bind(scalar, None, why)
        loop = Loop(counter, init, bound, 1, body + tail, name, coord, pipeline_ii, unroll,
                    pipeline_off)
        if pipeline_ii is not None:
            _check_unrollable(loop, loop.body)
        return entry + [loop]

    def _counter(self, cond: N.Node, items: list[N.Node]) -> tuple[str, N.Node, bool]:
        """The counter of a loop without a start: the scalar its condition compares,
        else the one its last statement steps (``while (a[n]) { ...; n++; }``), which
        must have an affine value before the loop; returned as ``(counter, the
        counter's name, False)``, the name standing for that value."""
        compared = [n for n in (cond.left, cond.right) if isinstance(n, N.Id)] if (
            isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS) else []
        for name_node in compared:
            if name_node.name in self._temporaries:
                return name_node.name, name_node, False
        last = items[-1] if items else None
        stepped = S.write_target(last) if last is not None else None
        if (not compared and stepped in self._temporaries
                and _step_of(last, stepped, self._scope())):
            target = last.expr if isinstance(last, N.UnaryOp) else last.lvalue
            return stepped, target, False
        why = next((self._opaque[n.name].describe(n.name) for n in compared
                    if n.name in self._opaque), None)
        raise _Uncountable(cond.coord, (
            "arraypart cannot count the iterations of this loop without a start ('while' "
            "or 'for (;'): its condition must compare a counter that has an affine value "
            "before the loop with a bound (while (i < N) { ...; i++; }), or write it as a "
            "for loop with affine bounds" + (f"; {why}" if why else "")))

    def _last_step(self, items: list[N.Node], var: str, coord: Coord) -> int:
        """The constant step of the counter in a loop body's last statement."""
        step = _step_of(items[-1], var, self._scope()) if items else None
        if not step:
            raise _Uncountable(items[-1].coord if items else coord, (
                f"a loop without an increment must step its counter '{var}' by a nonzero "
                f"constant in its last statement ({var}++, {var} += S)"))
        return step

    def _header_scalars(self, init: N.Node | None, var: str, declared: bool) -> None:
        """The header's other variables get their start values; the iterator is no
        scalar while the loop runs."""
        if isinstance(init, N.DeclList):
            for d in init.decls:
                if d.name != var:
                    self._declare_scalar(d)
        else:
            self._apply_effects(init)
        if declared:
            self._declare(var, None, None)
        else:
            self._bind(var, None, None)

    def _loop_body(self, items, tail, names, init, step, trip, name, coord
                   ) -> tuple[Node, ...]:
        """The lowered body, with each scalar that the iteration steps by a constant
        bound to its induction value; after the loop they hold their exit values
        (when the trip count is known) and the other scalars the body changes are
        opaque.  ``names``: the iterator's C name and its IR name (a callee's may be
        renamed)."""
        var, ir_var = names
        deltas = self._iteration_deltas(items, tail, var)
        number = S.iteration_number(ir_var, init, step)
        entry = self._state()
        varies = S.Opaque(f"changes by a non-constant amount in each iteration of loop "
                          f"'{name}'", coord)
        for scalar, delta in deltas.items():
            known = entry[0].get(scalar)
            if delta is None or number is None or known is None:
                self._bind(scalar, None, entry[1].get(scalar, varies))
            else:
                self._bind(scalar, S.induction_value(known, delta, number), None)
        body = tuple(self._items(items))
        self._restore(entry)
        changed = S.Opaque(f"is changed by loop '{name}'", coord)
        for scalar, delta in deltas.items():
            known = entry[0].get(scalar)
            if delta is None or trip is None or known is None:
                self._bind(scalar, None, entry[1].get(scalar, changed))
            else:
                self._bind(scalar, E.add(known, E.scale(delta, trip)), None)
        return body

    def _iteration_deltas(self, items, tail, var) -> dict[str, int | None]:
        """What one iteration adds to each scalar the loop may change: the body and
        the header's ``tail`` are followed (lowered, the result dropped) from
        symbolic start values; None where the change is not a constant."""
        changed = set()
        for node in list(items) + list(tail):
            changed |= S.written(node, self._scalars, self._callees)
        changed.discard(var)
        if not changed or self._followed >= MAX_FOLLOWED_LOOPS or _escapes(items):
            # past a break or continue an iteration's change is not one constant
            return dict.fromkeys(sorted(changed))
        saved = self._state()
        symbols = {name: S.entry_symbol(name, self._followed) for name in sorted(changed)}
        for name, symbol in symbols.items():
            self._bind(name, symbol, None)
        self._followed += 1
        try:
            self._items(items)
            for part in tail:
                self._apply_effects(part)
            end = dict(self._temporaries)
        finally:
            self._followed -= 1
            self._restore(saved)
        return {name: S.iteration_delta(end.get(name), symbol)
                for name, symbol in symbols.items()}

    def _bound_sizes(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], step: int,
                     header: list[N.Node]) -> None:
        """A ``LOOP_TRIPCOUNT max=M`` bounds each size the loop's span depends on
        (:func:`.interfaces.tripcount_bound`)."""
        found = I.tripcount(self._pragmas, header)
        if found is None or len(init) != 1 or len(bound) != 1:
            return
        trips, pragma = found
        span = E.add(bound[0], E.scale(-1, init[0]))
        if step < 0:
            span = E.scale(-1, span)
        for name in sorted(E.variables(span) & set(self._sizes)):
            others = {k: v for k, v in self._ranges.items() if k != name}
            high = I.tripcount_bound(span, name, step, trips, others)
            low, known = self._ranges[name]
            if high is not None and (known is None or high < known):
                self._ranges[name] = (low, high)
                self._size_sources[name] = (f"LOOP_TRIPCOUNT max={trips} at "
                                            f"{self._pragmas.coord(pragma)}")

    def _product_size(self, node: N.Node) -> tuple[E.Expr] | None:
        """A bound ``a * b`` of sizes (and constants) is not affine; its value is a size
        of its own, named by the product (``size*size``), that the loop's LOOP_TRIPCOUNT
        or the arrays it indexes bound.  None for any other expression."""
        leaves = _product_leaves(node)
        if (leaves is None or not any(isinstance(leaf, N.Id) for leaf in leaves)
                or len(self._calls) > 1):
            return None  # sizes are the top function's parameters
        words = []
        for leaf in leaves:
            if isinstance(leaf, N.Id) and leaf.name in self._sizes:
                words.append(leaf.name)
            elif (value := fold(leaf, self._scope())) is not None and value >= 0:
                words.append(str(value))
            else:
                return None
        name = "*".join(words)
        if name not in self._sizes:
            self._sizes[name] = node.coord
            self._ranges[name] = (0, None)
        return (E.var(name),)

    def _fresh_size(self, node: N.Node, what: str, body: list[N.Node], *,
                    upper: bool) -> tuple[E.Expr]:
        """A loop ``what`` (start or bound) that is not affine, as a fresh size
        (:mod:`.fresh`): ranged by interval arithmetic where it can be, else left to
        LOOP_TRIPCOUNT and the arrays.  ``upper``: the end that widens the domain as it
        grows (its least value may then be taken as 0)."""
        text = F.size_name(node, self._source).split(F.NAME_MARK)[0]
        changed = F.changed_names(node, body, self._scalars | set(self._sizes),
                                  self._callees)
        if changed:
            names = ", ".join(f"'{n}'" for n in changed)
            raise KernelError(node.coord, (
                f"loop {what} '{text}' is not affine and the loop changes {names}: "
                "arraypart can stand for a loop's start or bound by a size of its own "
                "only when the loop leaves what it reads unchanged (else write it as an "
                "affine expression, or a min()/max() of such)"))
        if not upper and self._unrolled:
            raise KernelError(node.coord, (
                f"loop {what} '{text}' is not affine and the loop lies in an unrolled "
                "loop, whose lanes would run it from different values together: give "
                "it an affine start"))
        name = F.size_name(node, self._source)
        if name not in self._sizes:
            self._sizes[name] = node.coord
            self._ranges[name] = (0, None) if upper else (None, None)
            arrays = {c_name: self._visible[c_name].array for c_name in (
                N.ref_name(r) for r in N.outer_array_refs(node)) if c_name in self._visible}
            self._fresh[name] = (node, self._scope(), upper, arrays)
        return (E.var(name),)

    def _iterator_range(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...],
                        step: int, ranges: Mapping[str, Bound] | None = None) -> Bound:
        """An interval holding the iterator's values: counting up it is at least every
        start and at most every (inclusive) bound, counting down the reverse (the
        variables in ``ranges``, by default those known here)."""
        ranges = self._ranges if ranges is None else ranges
        starts = [interval(t, ranges) for t in init]
        limits = [interval(t, ranges) for t in bound]
        below, above = (starts, limits) if step > 0 else (limits, starts)
        lows = [b[0] for b in below if b[0] is not None]
        highs = [b[1] for b in above if b[1] is not None]
        return (max(lows) if lows else None, min(highs) if highs else None)

    def _loop_init(self, init: N.Node, cond: N.Node) -> tuple[str, N.Node, bool]:
        """``(iterator, its start, declared in the header)``: with several variables
        in the header, the iterator is the one the condition tests."""
        starts: dict[str, N.Node] = {}
        if isinstance(init, N.DeclList):
            starts = {d.name: d.init for d in init.decls if d.init is not None}
            complete = len(starts) == len(init.decls)
        else:
            parts = _comma_parts(init)
            for part in parts:
                if (isinstance(part, N.Assignment) and part.op == "="
                        and isinstance(part.lvalue, N.Id)):
                    starts[part.lvalue.name] = part.rvalue
            complete = len(starts) == len(parts)
        tested = [n for n in starts if n in _compared_names(cond)]
        chosen = list(starts) if len(starts) == 1 else tested
        if not complete or len(chosen) != 1:
            raise _Uncountable(init.coord, "unsupported loop initialization (expected "
                                          "'int i = <start>' or 'i = <start>', with further "
                                          "variables only beside the one the condition "
                                          "tests)")
        return chosen[0], starts[chosen[0]], isinstance(init, N.DeclList)

    def _loop_step(self, nxt: N.Node, var: str) -> tuple[int, list[N.Node]]:
        """The iterator's constant step, and the header's other increments (``j++``
        in ``i++, j++``), which step scalars at the end of each iteration."""
        parts = _comma_parts(nxt)
        own = [p for p in parts if var in S.written(p, frozenset((var,)))]
        step = _step_of(own[0], var, self._scope()) if len(own) == 1 else None
        if step is None:
            raise _Uncountable(nxt.coord, f"unsupported loop increment (expected "
                                               f"{var}++, {var}--, {var} += S, {var} -= S "
                                               f"or {var} = {var} + S with a constant S)")
        if step == 0:
            raise KernelError(nxt.coord, "loop step must not be zero")
        return step, [p for p in parts if p is not own[0]]

    def _loop_cond(self, cond: N.Node, var: str) -> tuple[str, N.Node]:
        if isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS and cond.op != "==":
            if _is_id(cond.left, var):
                return cond.op, cond.right
            if _is_id(cond.right, var):
                return FLIPPED[cond.op], cond.left
        raise _Uncountable(cond.coord, f"loop condition must compare the iterator "
                                            f"'{var}' with a bound (<, <=, >, >=, !=)")

    def _loop_bounds(self, op, start, limit, step, cond, body):
        """(init terms, inclusive bound terms): a max of starts and a min of limits
        when the loop counts up, a min of starts and a max of limits when it counts down;
        a start or limit that is none of these, a fresh size (:meth:`_fresh_size`).
        ``body``: the loop's statements and header steps."""
        increasing = step > 0
        if op == "!=":
            if step not in UNIT_STEPS:
                raise KernelError(cond.coord, "a '!=' loop condition needs a step "
                                                    "of +1 or -1")
            op = "<" if increasing else ">"
        if op not in (("<", "<=") if increasing else (">", ">=")):
            raise KernelError(cond.coord, f"loop condition '{op}' does not match "
                                                f"the loop's step {step:+d}")
        scope = self._scope()
        init = min_max_terms(start, "max" if increasing else "min", scope)
        if init is None:
            init = self._fresh_size(start, "start", body, upper=not increasing)
        bound = min_max_terms(limit, "min" if increasing else "max", scope)
        if bound is None and increasing:
            bound = self._product_size(limit)
        if bound is None:
            bound = self._fresh_size(limit, "bound", body, upper=increasing)
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(start.coord, "a strided loop needs a single start")
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _loop_pragmas(self, header: list[N.Pragma], *, unroll: bool = True
                      ) -> tuple[int | None, int | None, bool]:
        """``(pipeline II, unroll, pipeline off)`` from the pragmas that open a loop
        body (a function body, without ``unroll``: only ``pipeline``)."""
        found: dict[str, int | None] = {}
        off = False
        for node in header:
            pragma = self._pragmas.parse(node)
            if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
                continue
            if pragma.kind == "unroll" and not unroll:
                raise KernelError(self._pragmas.coord(pragma),
                                  "#pragma HLS unroll must open a loop body (be its "
                                  "first statement)")
            if pragma.kind in found:
                raise KernelError(self._pragmas.coord(pragma),
                                  f"duplicate #pragma HLS {pragma.kind} in one loop")
            read = self._pragmas.pipeline_ii if pragma.kind == "pipeline" else self._pragmas.unroll
            found[pragma.kind] = read(pragma)
            off = off or (pragma.kind == "pipeline" and "off" in pragma.flags)
        return found.get("pipeline"), found.get("unroll"), off


class _Uncountable(KernelError):
    """A loop header arraypart cannot read as a counted loop: the loop is modelled
    over a counter of its own instead (:meth:`_Lowering._counter_loop`)."""


def _escapes(items) -> bool:
    """Whether a ``break`` or ``continue`` of this loop (not of a loop inside it) is
    among ``items``: then an iteration may skip the rest of its body."""
    stack = list(items)
    while stack:
        n = stack.pop()
        if isinstance(n, N.Unsupported) and n.keyword in ESCAPES:
            return True
        if not isinstance(n, (N.For, N.Switch)) and n is not None:
            stack.extend(c for c in n.children() if c is not None)
    return False


def _matches(subject: N.Node, arm: switches.Arm) -> N.Node:
    """The condition under which an arm other than the default runs, as C:
    ``subject == c1 || subject == c2 ...`` (nodes outside the text, for the
    lowering only)."""
    tests = [N.BinaryOp(value.coord, -1, -1, "==", subject, value) for value in arm.values]
    cond = tests[0]
    for test in tests[1:]:
        cond = N.BinaryOp(arm.label.coord, -1, -1, "||", cond, test)
    return cond


def _product_leaves(node: N.Node) -> list[N.Node] | None:
    """The factors of ``a * b * ...`` (at least two), else None."""
    if not (isinstance(node, N.BinaryOp) and node.op == "*"):
        return None
    leaves = []
    for side in (node.left, node.right):
        inner = _product_leaves(side)
        leaves += inner if inner is not None else [side]
    return leaves


def _used_variables(nodes: tuple[Node, ...]) -> set[str]:
    """Every variable of the loop bounds, guards and indices of ``nodes``."""
    used: set[str] = set()
    for node in nodes:
        if isinstance(node, Loop):
            for e in node.init + node.bound:
                used |= E.variables(e)
            used |= _used_variables(node.body)
        elif isinstance(node, If):
            for conj in node.cond or ():
                for c in conj:
                    used |= E.variables(c.expr)
            for access in node.cond_accesses:
                used |= _index_variables(access)
            used |= _used_variables(node.then + node.orelse)
        else:
            for access in node.accesses:
                used |= _index_variables(access)
    return used


def _written_arrays(nodes: tuple[Node, ...]) -> set[str]:
    """The arrays some access of ``nodes`` writes."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, Loop):
            found |= _written_arrays(node.body)
        elif isinstance(node, If):
            found |= _written_arrays(node.then + node.orelse)
        else:
            found |= {a.array for a in node.accesses if a.kind == "write"}
    return found


def _index_variables(access: Access) -> set[str]:
    return set().union(*(E.variables(e) for e in access.index if e is not None))


def _only_dereferenced(body: N.Node, name: str) -> bool:
    """Every use of ``name`` in ``body`` (if any) is ``*name``: element 0 alone."""
    uses = sum(1 for n in N.walk(body) if isinstance(n, N.Id) and n.name == name)
    derefs = sum(1 for n in N.walk(body) if isinstance(n, N.UnaryOp) and n.op == "*"
                 and isinstance(n.expr, N.Id) and n.expr.name == name)
    return uses == derefs


def _first(parts):
    return parts[0] if parts else None


def _element_member(node: N.Node) -> bool:
    """``A[i].x``: a member of an array element."""
    return (isinstance(node, N.Other) and node.what == MEMBER
            and isinstance(_first(node.parts), N.ArrayRef))


def _comma_parts(node: N.Node) -> list[N.Node]:
    """``a, b, c`` -> [a, b, c]."""
    if isinstance(node, N.BinaryOp) and node.op == ",":
        return _comma_parts(node.left) + _comma_parts(node.right)
    return [node]


def _compared_names(cond: N.Node) -> set[str]:
    """The names a loop condition compares (``i < N``: i)."""
    if isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS:
        return {n.name for n in (cond.left, cond.right) if isinstance(n, N.Id)}
    return set()


def _is_id(node: N.Node, name: str) -> bool:
    return isinstance(node, N.Id) and node.name == name


def _step_of(nxt: N.Node, var: str, scope: Scope) -> int | None:
    """The constant step of ``i++``, ``i--``, ``i += S``, ``i -= S``, or ``i = e`` with
    ``e - i`` a constant (``i = i + S``, ``i = S + i``, ``i = i - S``); else None."""
    if isinstance(nxt, N.UnaryOp) and _is_id(nxt.expr, var):
        return INCREMENTS.get(nxt.op)
    if not (isinstance(nxt, N.Assignment) and _is_id(nxt.lvalue, var)):
        return None
    if nxt.op in ("+=", "-="):
        k = fold(nxt.rvalue, scope)
        return None if k is None else (k if nxt.op == "+=" else -k)
    if nxt.op != "=":
        return None
    own = Scope(frozenset((var,)), scope.constants)
    next_value = quasi_affine(nxt.rvalue, own)
    if next_value is None:
        return None
    step = E.add(next_value, E.scale(-1, E.var(var)))
    return step.value if isinstance(step, E.Const) else None


def _check_unrollable(pipelined: Loop, nodes: tuple[Node, ...]) -> None:
    """Every loop inside a pipelined loop is fully unrolled, so its trip count
    ``(bound - init) / step + 1`` must be a constant: one start, one bound, and
    ``bound - init`` a constant."""
    for node in nodes:
        if isinstance(node, Loop):
            span = E.add(node.bound[0], E.scale(-1, node.init[0]))
            if len(node.init) != 1 or len(node.bound) != 1 or not isinstance(span, E.Const):
                raise KernelError(node.coord, f"loop '{node.name}' inside pipelined loop "
                                              f"'{pipelined.name}' is fully unrolled, so "
                                              "its trip count must be a constant")
            _check_unrollable(pipelined, node.body)
        elif isinstance(node, If):
            _check_unrollable(pipelined, node.then + node.orelse)
