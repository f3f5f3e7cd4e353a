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
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Access, Array, If, Loop, Node, Stmt
from . import calls
from .calls import Binding
from .cexpr import (COMPARISONS, FLIPPED, Bound, Scope, condition_dnf, fold,
                    interval, min_max_terms, quasi_affine)
from . import cnodes as N
from .declarations import affine_temporary, array_decl, integer_constant
from .pragmas import LOOP_DIRECTIVES, PragmaReader

POINTER_KIND = ci.TypeKind.POINTER
REFERENCE_KINDS = (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)
MEMBER = "member ref expr"
INCREMENTS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
UNIT_STEPS = (1, -1)
# Inlining copies a callee per call: a chain of calls deeper than this (C compilers nest
# far less in practice) or more inlined calls in all, each call doubling the next
# (f1 calls f2 twice, f2 calls f3 twice, ...), would exhaust the stack or the memory.
MAX_CALL_DEPTH = 64
MAX_INLINED_CALLS = 4096


@dataclass(frozen=True, slots=True)
class Lowered:
    """``arrays``: parameters, file-scope arrays, locals, then the sub-functions'
    locals; ``body``: the loop tree with every call inlined; ``callees``: the
    sub-functions reached, in the order first called; ``local_decls``: the IR name of
    every array declared in a function body -> its declaration."""

    arrays: tuple[Array, ...]
    body: tuple[Node, ...]
    callees: tuple[N.FuncDef, ...]
    local_decls: dict[str, N.Decl]


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
        self._globals = globals_
        self._constants: dict[str, int] = dict(defines)
        self._pragmas = PragmaReader(filename, lines, self._constants)
        self._ref_ids = {id(r): k for k, r in enumerate(N.outer_array_refs(func.body))}
        self._next_ref = len(self._ref_ids)  # the first ref_id of an inlined body
        self._arrays: dict[str, Array] = {}
        self._pointers: dict[str, Coord] = {}
        self._iterators: list[str] = []  # the IR names of the enclosing loops' iterators
        self._frame_vars: list[str] = []  # the C names of the current function's ones
        self._ranges: dict[str, Bound] = {}
        self._temporaries: dict[str, E.Expr] = {}
        self._callees = callees
        self._calls: list[str] = [func.name]  # the chain of calls being inlined
        self._visible: dict[str, Binding] = {}  # C array names -> the memory they denote
        self._file_constants: dict[str, int] = {}
        self._file_arrays: dict[str, Binding] = {}
        self._callee_arrays: dict[str, dict[str, Binding]] = {}
        self._array_decls: dict[str, N.Decl] = {}
        self._functions: dict[str, list[str]] = {}  # array -> functions whose text uses it
        self._pipelines = 0  # pipelined loops enclosing the current statement
        self._frame_start = 0  # where the current function's iterators start
        self._inlined_calls = 0
        self._function_pipeline: str | None = None

    def run(self):
        self._collect_constants()
        self._collect_arrays()
        self._visible = {name: Binding(name) for name in self._arrays}
        self._apply_array_pragmas(self._func.body, self._visible)
        body = self._function_body(self._func)
        arrays = tuple(replace(a, functions=tuple(self._functions.get(a.name, ())))
                       for a in self._arrays.values())
        reached = tuple(self._callees[name] for name in self._callee_arrays)
        local = {name: d for name, d in self._array_decls.items()
                 if not self._arrays[name].interface and name not in self._file_arrays}
        return Lowered(arrays, body, reached, local)

    # ------------------------------------------------------------ declarations

    def _scope(self) -> Scope:
        """What names mean in the current function: its own iterators (a callee's may
        be renamed: its temporaries then map the C name to the IR one)."""
        return Scope(frozenset(self._iterators[self._frame_start:]), self._constants,
                     dict(self._ranges), dict(self._temporaries))

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
        for param in self._func.params:
            if param.is_array:
                self._add_array(param, interface=True)
            elif param.ctype is not None and param.ctype.kind == POINTER_KIND:
                self._pointers[param.name] = param.coord
        for node in self._globals:
            if node.is_array:
                self._add_array(node, interface=False)
                self._file_arrays[node.name] = Binding(node.name)
        for node in N.walk(self._func.body):
            if isinstance(node, N.Decl) and node.is_array:
                self._add_array(node, interface=False)

    def _add_array(self, decl: N.Decl, *, interface: bool, owner: str | None = None,
                   taken: Mapping[str, Binding] = {}) -> str:
        """Add the array ``decl`` declares; its IR name: its own, or for a local of the
        sub-function ``owner`` whose name another array has, ``<name>_<owner>``
        (numbered until free).  ``taken``: the names already declared in its function."""
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
        array = array_decl(decl, interface=interface)
        self._arrays[name] = replace(array, name=name) if name != decl.name else array
        self._array_decls[name] = decl
        return name

    def _apply_array_pragmas(self, body: N.Node, names: Mapping[str, Binding],
                             parameters: frozenset = frozenset()) -> None:
        """The array_partition and bind_storage pragmas in ``body`` (a function's);
        ``names``: the arrays its text names; ``parameters``: its array parameters,
        which other functions' arrays stand for."""
        ranks = {c_name: len(self._arrays[b.array].shape) for c_name, b in names.items()}
        for node in N.walk(body):
            pragma = self._pragmas.parse(node) if isinstance(node, N.Pragma) else None
            if pragma is None:
                continue
            if pragma.kind not in ("array_partition", "bind_storage"):
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
                storage, impl = self._pragmas.storage(pragma)
                self._arrays[name] = replace(array, storage=storage, storage_impl=impl)

    # ------------------------------------------------------------ statements

    def _items(self, items) -> list[Node]:
        """A block's statements; const temporaries declared in it end with it."""
        outer = dict(self._temporaries)
        nodes: list[Node] = []
        try:
            for item in items or ():
                nodes.extend(self._statement(item))
        finally:
            self._temporaries = outer
        return nodes

    def _statement(self, node: N.Node) -> list[Node]:
        coord = node.coord
        if isinstance(node, N.Pragma):
            self._check_stray_pragma(node)
            return []
        if isinstance(node, N.Compound):
            return self._items(node.items)
        if isinstance(node, N.Label):
            if isinstance(node.stmt, N.For):
                return [self._loop(node.stmt, node.name)]
            return self._statement(node.stmt)
        if isinstance(node, N.For):
            return [self._loop(node, None)]
        if isinstance(node, N.If):
            return [self._if(node)]
        if isinstance(node, N.Unsupported):
            raise KernelError(coord, f"'{node.keyword}' is not supported in the top "
                                     "function (use for loops with affine bounds)")
        if isinstance(node, N.DeclList):
            stmts = []
            for d in node.decls:
                if d.is_array or d.init is None:
                    continue
                self._check_reference(d)
                stmts += self._inlined(d.init)
                stmts.append(Stmt(tuple(self._accesses(d.init)), d.coord))
                self._temporaries.pop(d.name, None)
                value = affine_temporary(d, self._scope())
                if value is not None and not isinstance(value, E.Const):
                    self._temporaries[d.name] = value
            return stmts
        if isinstance(node, N.Empty):
            return []
        if isinstance(node, N.Return):
            if node.expr is None:
                return []
            return self._inlined(node.expr) + [Stmt(tuple(self._accesses(node.expr)), coord)]
        return self._inlined(node) + [Stmt(tuple(self._accesses(node)), coord)]

    # ------------------------------------------------------------ calls

    def _function_body(self, func: N.FuncDef) -> tuple[Node, ...]:
        """The body of ``func``; with ``#pragma HLS pipeline`` among the pragmas that
        open it, one pipelined loop of a single iteration around it (DESIGN §2: the
        whole call is one pipeline iteration)."""
        items = list(func.body.items)
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        ii, _ = self._loop_pragmas(items[:header], unroll=False)
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
        caller's arrays, its scalars to their arguments' values, its iterators fresh."""
        callee = self._callees[call.name]
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
        if callee.name in self._calls:
            chain = " -> ".join(self._calls + [callee.name])
            raise KernelError(call.coord, f"recursive call of '{callee.name}' ({chain}): "
                                          "arraypart inlines every call, so recursion "
                                          "cannot be modelled; write it as a loop")
        for arg in call.args:
            if isinstance(arg, N.Id) and arg.name in self._pointers:
                raise KernelError(self._pointers[arg.name],
                                  f"array parameter '{arg.name}' needs a fixed size")
        args = calls.bind(call, callee, self._visible, self._arrays, self._scope())
        saved = (self._visible, self._temporaries, dict(self._constants), self._ref_ids,
                 self._frame_start, self._frame_vars)
        self._calls.append(callee.name)
        try:
            self._constants.clear()
            self._constants.update(self._file_constants)
            self._constants.update(args.constants)
            self._temporaries = dict(args.values)
            self._frame_start, self._frame_vars = len(self._iterators), []
            self._add_constants(n for n in N.walk(callee.body) if isinstance(n, N.Decl))
            self._visible = {**self._file_arrays, **self._callee_locals(callee),
                             **args.arrays}
            refs = N.outer_array_refs(callee.body)
            self._ref_ids = {id(r): self._next_ref + k for k, r in enumerate(refs)}
            self._next_ref += len(refs)
            return list(self._function_body(callee))
        finally:
            self._calls.pop()
            (self._visible, self._temporaries, constants, self._ref_ids,
             self._frame_start, self._frame_vars) = saved
            self._constants.clear()
            self._constants.update(constants)

    def _callee_locals(self, callee: N.FuncDef) -> dict[str, Binding]:
        """The arrays ``callee`` declares (one memory per declaration, shared by every
        call: the one text is banked once), added with their pragmas on first use."""
        if callee.name not in self._callee_arrays:
            found: dict[str, Binding] = {}
            for node in N.walk(callee.body):
                if isinstance(node, N.Decl) and node.is_array:
                    found[node.name] = Binding(self._add_array(
                        node, interface=False, owner=callee.name, taken=found))
            self._callee_arrays[callee.name] = found
            self._apply_array_pragmas(callee.body, {**self._file_arrays, **found}, frozenset(
                p.name for p in callee.params if calls.is_array_parameter(p)))
        return self._callee_arrays[callee.name]

    def _fresh_iterator(self, var: str) -> str:
        """``var``, or ``var_<k>`` when an enclosing loop's iterator is named so."""
        name, k = var, 1
        while name in self._iterators:
            name, k = f"{var}_{k}", k + 1
        return name

    def _check_reference(self, decl: N.Decl) -> None:
        """A C++ reference bound to an array element would hide later accesses."""
        if decl.ctype is None or decl.ctype.kind not in REFERENCE_KINDS:
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
        if pragma is not None and pragma.kind in LOOP_DIRECTIVES:
            raise KernelError(self._pragmas.coord(pragma),
                              f"#pragma HLS {pragma.kind} must open a loop body "
                              "(be its first statement)")

    def _if(self, node: N.If) -> If:
        self._no_calls(node.cond, "an if condition")
        cond = condition_dnf(node.cond, self._scope())
        cond_accesses = () if cond is not None else tuple(self._accesses(node.cond))
        then = tuple(self._statement(node.iftrue))
        orelse = tuple(self._statement(node.iffalse)) if node.iffalse is not None else ()
        return If(cond, then, orelse, node.coord, cond_accesses)

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
            if call.name not in self._callees and call.name not in calls.MEMORY_ROUTINES:
                raise KernelError(arg.coord, f"array '{memory.base.array}' is passed to "
                                             f"'{call.name or 'a function'}', whose "
                                             "definition is not in the kernel file: "
                                             "arraypart cannot see its accesses (define "
                                             "it in the kernel file, not a template or "
                                             "a header)")
            for node in memory.nodes():
                self._collect(node, out)

    def _target(self, node: N.Node, out: list[Access], kinds: tuple[str, ...]) -> None:
        if isinstance(node, N.Id) and node.name in self._frame_vars:
            raise KernelError(node.coord,
                              f"assignment to loop iterator '{node.name}' inside its loop")
        if isinstance(node, N.ArrayRef):
            self._reference(node, out, kinds)
        elif isinstance(node, N.Other) and node.what == MEMBER and isinstance(
                _first(node.parts), N.ArrayRef):
            # A[i].x = v: a field of one element is written.
            self._reference(node.parts[0], out, kinds)
            for part in node.parts[1:]:
                self._collect(part, out)
        else:
            self._collect(node, out)

    def _reference(self, node: N.ArrayRef, out: list[Access],
                   kinds: tuple[str, ...]) -> None:
        """``A[e0][e1]...``: the reads inside its subscripts, then its own accesses."""
        subscripts, base = [], node
        while isinstance(base, N.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        for subscript in subscripts:
            self._collect(subscript, out)
        coord = node.coord
        name = base.name if isinstance(base, N.Id) else None
        if name not in self._visible:
            if name in self._pointers:
                raise KernelError(self._pointers[name],
                                  f"array parameter '{name}' needs a fixed size")
            raise KernelError(coord, "only arrays declared with a fixed size can be "
                                     "indexed" + (f" ('{name}' is not one)" if name else ""))
        binding = self._visible[name]
        rank = len(self._arrays[binding.array].shape) - len(binding.prefix)
        if len(subscripts) != rank:
            raise KernelError(coord, f"array '{name}' has {rank} dimension(s) but is "
                                     f"indexed with {len(subscripts)} subscript(s)")
        scope = self._scope()
        index = binding.index(tuple(quasi_affine(s, scope) for s in subscripts))
        user = self._calls[-1] if len(self._calls) > 1 else self._function_pipeline
        if user is not None and user not in self._functions.setdefault(binding.array, []):
            self._functions[binding.array].append(user)
        for kind in kinds:
            out.append(Access(binding.array, index, kind, self._ref_ids[id(node)], coord))

    # ------------------------------------------------------------ loops

    def _loop(self, node: N.For, label: str | None) -> Loop:
        """``for (i = start; i <op> limit; i += step)`` as a normalized :class:`Loop`."""
        coord = node.coord
        if node.init is None or node.cond is None or node.next is None:
            raise KernelError(coord, "a loop needs an initialization, a condition and "
                                     "an increment")
        for part in (node.init, node.cond, node.next):
            self._no_calls(part, "a loop header")
        var, start = self._loop_init(node.init)
        if var in self._frame_vars:
            raise KernelError(node.init.coord,
                              f"loop iterator '{var}' is already used by an enclosing loop")
        step = self._loop_step(node.next, var)
        op, limit = self._loop_cond(node.cond, var)
        init, bound = self._loop_bounds(op, start, limit, step, node.cond)
        items = node.stmt.items if isinstance(node.stmt, N.Compound) else [node.stmt]
        items = list(items or ())
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        pipeline_ii, unroll = self._loop_pragmas(items[:header])
        ir_var = var if len(self._calls) == 1 else self._fresh_iterator(var)
        self._iterators.append(ir_var)
        self._frame_vars.append(var)
        self._ranges[ir_var] = self._iterator_range(init, bound, step)
        shadowed = self._temporaries.pop(var, None)
        if ir_var != var:
            self._temporaries[var] = E.var(ir_var)
        self._pipelines += pipeline_ii is not None
        try:
            body = tuple(self._items(items[header:]))
        finally:
            self._iterators.pop()
            self._frame_vars.pop()
            del self._ranges[ir_var]
            self._temporaries.pop(var, None)
            self._pipelines -= pipeline_ii is not None
            if shadowed is not None:
                self._temporaries[var] = shadowed
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1]}/{name}"  # Vitis' location syntax
        loop = Loop(ir_var, init, bound, step, body, name, coord, pipeline_ii, unroll)
        if pipeline_ii is not None:
            _check_unrollable(loop, loop.body)
        return loop

    def _iterator_range(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...],
                        step: int) -> Bound:
        """An interval holding the iterator's values: counting up it is at least every
        start and at most every (inclusive) bound, counting down the reverse."""
        starts = [interval(t, self._ranges) for t in init]
        limits = [interval(t, self._ranges) for t in bound]
        below, above = (starts, limits) if step > 0 else (limits, starts)
        lows = [b[0] for b in below if b[0] is not None]
        highs = [b[1] for b in above if b[1] is not None]
        return (max(lows) if lows else None, min(highs) if highs else None)

    def _loop_init(self, init: N.Node) -> tuple[str, N.Node]:
        if isinstance(init, N.DeclList) and len(init.decls) == 1 and init.decls[0].init:
            return init.decls[0].name, init.decls[0].init
        if (isinstance(init, N.Assignment) and init.op == "="
                and isinstance(init.lvalue, N.Id)):
            return init.lvalue.name, init.rvalue
        raise KernelError(init.coord, "unsupported loop initialization "
                                            "(expected 'int i = <start>' or 'i = <start>')")

    def _loop_step(self, nxt: N.Node, var: str) -> int:
        step = _step_of(nxt, var, self._scope())
        if step is None:
            raise KernelError(nxt.coord, f"unsupported loop increment (expected "
                                               f"{var}++, {var}--, {var} += S, {var} -= S "
                                               f"or {var} = {var} + S with a constant S)")
        if step == 0:
            raise KernelError(nxt.coord, "loop step must not be zero")
        return step

    def _loop_cond(self, cond: N.Node, var: str) -> tuple[str, N.Node]:
        if isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS and cond.op != "==":
            if _is_id(cond.left, var):
                return cond.op, cond.right
            if _is_id(cond.right, var):
                return FLIPPED[cond.op], cond.left
        raise KernelError(cond.coord, f"loop condition must compare the iterator "
                                            f"'{var}' with a bound (<, <=, >, >=, !=)")

    def _loop_bounds(self, op, start, limit, step, cond):
        """(init terms, inclusive bound terms): a max of starts and a min of limits
        when the loop counts up, a min of starts and a max of limits when it counts down."""
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
            raise KernelError(start.coord, _NOT_AFFINE.format(
                what="start", kind="max" if increasing else "min"))
        bound = min_max_terms(limit, "min" if increasing else "max", scope)
        if bound is None:
            raise KernelError(limit.coord, _NOT_AFFINE.format(
                what="bound", kind="min" if increasing else "max"))
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(start.coord, "a strided loop needs a single start")
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _loop_pragmas(self, header: list[N.Pragma], *, unroll: bool = True
                      ) -> tuple[int | None, int | None]:
        """``(pipeline II, unroll)`` from the pragmas that open a loop body (a function
        body, without ``unroll``: only ``pipeline``)."""
        found: dict[str, int | None] = {}
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
        return found.get("pipeline"), found.get("unroll")


_NOT_AFFINE = ("loop {what} must be affine in constants and enclosing loop iterators "
               "(or a {kind}() of such)")


def _first(parts):
    return parts[0] if parts else None


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
