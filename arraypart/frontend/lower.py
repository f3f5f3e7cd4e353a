"""The top function's syntax tree (:mod:`.cnodes`) -> the IR's arrays and loop tree.

Loops are normalized as :class:`arraypart.ir.Loop` documents: ``i < UB`` becomes the
inclusive bound ``UB - 1``, ``i > UB`` becomes ``UB + 1``, ``i != UB`` is ``<`` or ``>``
by the step's sign, and ``min``/``max`` bounds become tuples of terms.  A statement's
accesses are listed in evaluation order: subscripts before the reference they index,
the right side before the left, a compound assignment's read before its write.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Access, Array, If, Loop, Node, Param, Stmt
from .cexpr import (COMPARISONS, FLIPPED, Bound, Scope, condition_dnf, fold,
                    interval, min_max_terms, quasi_affine)
from . import cnodes as N
from .declarations import affine_temporary, array_decl, integer_constant
from . import interfaces as I
from .pragmas import LOOP_DIRECTIVES, PragmaReader

POINTER_KIND = ci.TypeKind.POINTER
REFERENCE_KINDS = (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)
MEMBER = "member ref expr"
INCREMENTS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
UNIT_STEPS = (1, -1)


def lower_function(func: N.FuncDef, globals_: tuple[N.Decl, ...], filename: str,
                   lines: list[str], defines: Mapping[str, int]
                   ) -> tuple[tuple[Array, ...], tuple[Node, ...], tuple[Param, ...]]:
    """The arrays (parameters, file-scope arrays, locals, in that order), the loop
    tree and the run-time sizes of ``func``; ``globals_`` are the file-scope variables."""
    return _Lowering(func, globals_, filename, lines, defines).run()


class _Lowering:
    """One lowering run; its mutable state (drafts, enclosing iterators) is private."""

    def __init__(self, func, globals_, filename, lines, defines):
        self._func = func
        self._globals = globals_
        self._constants: dict[str, int] = dict(defines)
        self._pragmas = PragmaReader(filename, lines, self._constants)
        self._ref_ids = {id(r): k for k, r in enumerate(N.outer_array_refs(func.body))}
        self._arrays: dict[str, Array] = {}
        self._iterators: list[str] = []
        self._ranges: dict[str, Bound] = {}
        self._temporaries: dict[str, E.Expr] = {}
        self._interfaces = I.interface_pragmas(func, self._pragmas)
        self._streams: set[str] = set()
        self._sizes: dict[str, Coord] = {}
        self._size_sources: dict[str, str] = {}
        self._reached: dict[str, list[tuple[E.Expr | None, dict[str, Bound]]]] = {}

    def run(self):
        self._collect_constants()
        self._collect_sizes()
        self._collect_arrays()
        self._apply_array_pragmas()
        body = tuple(self._items(self._func.body.items))
        self._fix_extents()
        return tuple(self._arrays.values()), body, self._params(body)

    # ------------------------------------------------------------ declarations

    def _scope(self) -> Scope:
        return Scope(frozenset(self._iterators) | frozenset(self._sizes), self._constants,
                     dict(self._ranges), dict(self._temporaries))

    def _collect_sizes(self) -> None:
        """The run-time sizes (module :mod:`.interfaces`): at least 0, at most the
        ``-D ARRAYPART_MAX_<name>`` value when one is given."""
        for param in self._func.params:
            if param.name and param.name not in self._constants and I.is_size_candidate(
                    param, self._func.body):
                self._sizes[param.name] = param.coord
                self._ranges[param.name] = (0, None)
        for name, high in I.define_bounds(self._constants, list(self._sizes)).items():
            self._ranges[name] = (0, high)
            self._size_sources[name] = f"-D {I.MAX_DEFINE_PREFIX}{name}"

    def _params(self, body: tuple[Node, ...]) -> tuple[Param, ...]:
        """The sizes the IR uses, each with the range known so far (the polyhedral pass
        bounds the others by the arrays they index)."""
        used = _used_variables(body)
        params = []
        for name, coord in self._sizes.items():
            if name not in used:
                continue
            low, high = self._ranges[name]
            if high is not None and high < low:
                raise KernelError(coord, f"run-time size '{name}': {self._size_sources[name]} "
                                         f"leaves it no value from {low} up")
            params.append(Param(name, low, high, coord, self._size_sources.get(name)))
        return tuple(params)

    def _collect_constants(self) -> None:
        decls = list(self._globals)
        decls += [n for n in N.walk(self._func.body) if isinstance(n, N.Decl)]
        for decl in decls:
            value = integer_constant(decl, self._scope())
            if value is not None:
                self._constants[decl.name] = value

    def _collect_arrays(self) -> None:
        for param in self._func.params:
            if I.is_stream(param):
                self._streams.add(param.name)
            elif param.is_array or I.is_unsized(param):
                self._add_parameter(param)
        for node in self._globals:
            if node.is_array:
                self._add_array(node, interface=False)
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
        or unused)."""
        for name, accesses in self._reached.items():
            param = next(p for p in self._func.params if p.name == name)
            iface = self._interfaces.get(name) or I.default_interface(param)
            highs = [None if index is None else interval(
                index, {**ranges, **{n: self._ranges[n] for n in self._sizes}})[1]
                for index, ranges in accesses]
            if iface.depth is not None:
                extent = iface.depth
            elif None in highs or not (highs or _only_dereferenced(self._func.body, name)):
                raise I.unknown_extent(name, iface.coord or param.coord, iface)
            else:
                extent = max([h + 1 for h in highs] + [1])
            array = self._arrays[name]
            self._arrays[name] = replace(array, shape=(extent,) + array.shape[1:])

    def _add_array(self, decl: N.Decl, *, interface: bool, extent: int | None = None
                   ) -> None:
        if decl.name in self._arrays:
            raise KernelError(decl.coord, f"array '{decl.name}' is declared twice")
        self._arrays[decl.name] = array_decl(decl, interface=interface, extent=extent)

    def _apply_array_pragmas(self) -> None:
        ranks = {name: len(d.shape) for name, d in self._arrays.items()}
        for node in N.walk(self._func.body):
            pragma = self._pragmas.parse(node) if isinstance(node, N.Pragma) else None
            if pragma is None:
                continue
            if pragma.kind not in ("array_partition", "bind_storage"):
                continue
            name = self._pragmas.target(pragma, ranks)
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
                stmts.append(Stmt(tuple(self._accesses(d.init)), d.coord))
                self._temporaries.pop(d.name, None)
                value = affine_temporary(d, self._scope())
                if value is not None and not isinstance(value, E.Const):
                    self._temporaries[d.name] = value
            return stmts
        if isinstance(node, N.Empty):
            return []
        if isinstance(node, N.Return):
            return [] if node.expr is None else [Stmt(tuple(self._accesses(node.expr)), coord)]
        return [Stmt(tuple(self._accesses(node)), coord)]

    def _check_reference(self, decl: N.Decl) -> None:
        """A C++ reference bound to an array element would hide later accesses."""
        if decl.ctype is None or decl.ctype.kind not in REFERENCE_KINDS:
            return
        for ref in N.outer_array_refs(decl.init):
            name = N.ref_name(ref)
            if name in self._arrays:
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

    def _collect(self, node: N.Node, out: list[Access]) -> None:
        if isinstance(node, N.ArrayRef):
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

    def _target(self, node: N.Node, out: list[Access], kinds: tuple[str, ...]) -> None:
        if isinstance(node, N.Id) and node.name in self._iterators:
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
        if name in self._streams:
            return  # a FIFO: s[k].read() is no memory access
        if name not in self._arrays:
            raise KernelError(coord, "only arrays declared with a fixed size can be "
                                     "indexed" + (f" ('{name}' is not one)" if name else ""))
        rank = len(self._arrays[name].shape)
        if len(subscripts) != rank:
            raise KernelError(coord, f"array '{name}' has {rank} dimension(s) but is "
                                     f"indexed with {len(subscripts)} subscript(s)")
        scope = self._scope()
        index = tuple(quasi_affine(s, scope) for s in subscripts)
        if name in self._reached:
            self._reached[name].append((index[0], dict(self._ranges)))
        for kind in kinds:
            out.append(Access(name, index, kind, self._ref_ids[id(node)], coord))

    # ------------------------------------------------------------ loops

    def _loop(self, node: N.For, label: str | None) -> Loop:
        """``for (i = start; i <op> limit; i += step)`` as a normalized :class:`Loop`."""
        coord = node.coord
        if node.init is None or node.cond is None or node.next is None:
            raise KernelError(coord, "a loop needs an initialization, a condition and "
                                     "an increment")
        var, start = self._loop_init(node.init)
        if var in self._iterators:
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
        self._bound_sizes(init, bound, step, items[:header])
        self._iterators.append(var)
        self._ranges[var] = self._iterator_range(init, bound, step)
        shadowed = self._temporaries.pop(var, None)
        try:
            body = tuple(self._items(items[header:]))
        finally:
            self._iterators.pop()
            del self._ranges[var]
            if shadowed is not None:
                self._temporaries[var] = shadowed
        loop = Loop(var, init, bound, step, body, label or f"L{coord.line}", coord,
                    pipeline_ii, unroll)
        if pipeline_ii is not None:
            _check_unrollable(loop, loop.body)
        return loop

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
        if leaves is None or not any(isinstance(leaf, N.Id) for leaf in leaves):
            return None
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
        if bound is None and increasing:
            bound = self._product_size(limit)
        if bound is None:
            raise KernelError(limit.coord, _NOT_AFFINE.format(
                what="bound", kind="min" if increasing else "max"))
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(start.coord, "a strided loop needs a single start")
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _loop_pragmas(self, header: list[N.Pragma]) -> tuple[int | None, int | None]:
        """``(pipeline II, unroll)`` from the pragmas that open a loop body."""
        found: dict[str, int | None] = {}
        for node in header:
            pragma = self._pragmas.parse(node)
            if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
                continue
            if pragma.kind in found:
                raise KernelError(self._pragmas.coord(pragma),
                                  f"duplicate #pragma HLS {pragma.kind} in one loop")
            read = self._pragmas.pipeline_ii if pragma.kind == "pipeline" else self._pragmas.unroll
            found[pragma.kind] = read(pragma)
        return found.get("pipeline"), found.get("unroll")


_NOT_AFFINE = ("loop {what} must be affine in constants, enclosing loop iterators and "
               "integer size arguments the body never assigns (or a {kind}() of such, or "
               "a product of sizes alone)")


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
