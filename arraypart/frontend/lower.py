"""The top function's C tree -> the IR's arrays and loop tree.

Loops are normalized as :class:`arraypart.ir.Loop` documents: ``i < UB`` becomes the
inclusive bound ``UB - 1``, ``i > UB`` becomes ``UB + 1``, ``i != UB`` is ``<`` or ``>``
by the step's sign, and ``min``/``max`` bounds become tuples of terms.  A statement's
accesses are listed in evaluation order: subscripts before the reference they index,
the right side before the left, a compound assignment's read before its write.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from pycparser import c_ast

from .. import expr as E
from ..cast import outer_array_refs
from ..errors import Coord, KernelError
from ..ir import Access, Array, If, Loop, Node, Stmt
from .cexpr import (COMPARISONS, FLIPPED, Scope, condition_dnf, fold, int_literal,
                    min_max_terms, quasi_affine)
from .cparse import node_coord
from .declarations import (affine_temporary, array_decl, integer_constant, is_array_decl,
                           walk)
from .pragmas import LOOP_DIRECTIVES, PragmaReader

UNSUPPORTED_STATEMENTS = {
    c_ast.While: "while", c_ast.DoWhile: "do", c_ast.Goto: "goto",
    c_ast.Switch: "switch", c_ast.Break: "break", c_ast.Continue: "continue",
}
EXPRESSION_STATEMENTS = (
    c_ast.Assignment, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.FuncCall, c_ast.TernaryOp,
    c_ast.ExprList, c_ast.Cast, c_ast.ID, c_ast.Constant, c_ast.ArrayRef, c_ast.StructRef,
)
INCREMENTS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
UNIT_STEPS = (1, -1)


def lower_function(func: c_ast.FuncDef, ast: c_ast.FileAST, filename: str,
                   lines: list[str], defines: Mapping[str, int]
                   ) -> tuple[tuple[Array, ...], tuple[Node, ...]]:
    """The arrays (parameters, file-scope arrays, locals, in that order) and the loop
    tree of ``func``."""
    return _Lowering(func, ast, filename, lines, defines).run()


class _Lowering:
    """One lowering run; its mutable state (drafts, enclosing iterators) is private."""

    def __init__(self, func, ast, filename, lines, defines):
        self._func = func
        self._ast = ast
        self._typedefs = {n.name: n.type for n in ast.ext if isinstance(n, c_ast.Typedef)}
        self._constants: dict[str, int] = dict(defines)
        self._pragmas = PragmaReader(filename, lines, self._constants)
        self._ref_ids = {id(r): k for k, r in enumerate(outer_array_refs(func.body))}
        self._arrays: dict[str, Array] = {}
        self._pointers: dict[str, Coord] = {}
        self._iterators: list[str] = []
        self._temporaries: dict[str, E.Expr] = {}

    def run(self):
        _check_literals(self._ast)
        self._collect_constants()
        self._collect_arrays()
        self._apply_array_pragmas()
        body = tuple(self._items(self._func.body.block_items))
        return tuple(self._arrays.values()), body

    # ------------------------------------------------------------ declarations

    def _scope(self) -> Scope:
        return Scope(frozenset(self._iterators), self._constants, dict(self._temporaries))

    def _collect_constants(self) -> None:
        decls = [n for n in self._ast.ext if isinstance(n, c_ast.Decl)]
        decls += [n for n in walk(self._func.body) if isinstance(n, c_ast.Decl)]
        for decl in decls:
            value = integer_constant(decl, self._scope())
            if value is not None:
                self._constants[decl.name] = value

    def _collect_arrays(self) -> None:
        params = self._func.decl.type.args
        for param in params.params if params is not None else ():
            if is_array_decl(param):
                self._add_array(param, interface=True)
            elif isinstance(param, c_ast.Decl) and isinstance(param.type, c_ast.PtrDecl):
                self._pointers[param.name] = node_coord(param)
        for node in self._ast.ext:
            if is_array_decl(node):
                self._add_array(node, interface=False)
        for node in walk(self._func.body):
            if is_array_decl(node):
                self._add_array(node, interface=False)

    def _add_array(self, decl: c_ast.Decl, *, interface: bool) -> None:
        if decl.name in self._arrays:
            raise KernelError(node_coord(decl), f"array '{decl.name}' is declared twice")
        self._arrays[decl.name] = array_decl(
            decl, interface=interface, typedefs=self._typedefs, scope=self._scope())

    def _apply_array_pragmas(self) -> None:
        ranks = {name: len(d.shape) for name, d in self._arrays.items()}
        for node in walk(self._func.body):
            pragma = self._pragmas.parse(node) if isinstance(node, c_ast.Pragma) else None
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

    def _statement(self, node: c_ast.Node) -> list[Node]:
        coord = node_coord(node)
        if isinstance(node, c_ast.Pragma):
            self._check_stray_pragma(node)
            return []
        if isinstance(node, c_ast.Compound):
            return self._items(node.block_items)
        if isinstance(node, c_ast.Label):
            if isinstance(node.stmt, c_ast.For):
                return [self._loop(node.stmt, node.name)]
            return self._statement(node.stmt)
        if isinstance(node, c_ast.For):
            return [self._loop(node, None)]
        if isinstance(node, c_ast.If):
            return [self._if(node)]
        if type(node) in UNSUPPORTED_STATEMENTS:
            keyword = UNSUPPORTED_STATEMENTS[type(node)]
            raise KernelError(coord, f"'{keyword}' is not supported in the top function "
                                     "(use for loops with affine bounds)")
        if isinstance(node, c_ast.Decl):
            if is_array_decl(node) or node.init is None:
                return []
            stmt = Stmt(tuple(self._accesses(node.init)), coord)
            self._temporaries.pop(node.name, None)
            value = affine_temporary(node, self._scope())
            if value is not None and not isinstance(value, E.Const):
                self._temporaries[node.name] = value
            return [stmt]
        if isinstance(node, (c_ast.EmptyStatement, c_ast.Typedef)):
            return []
        if isinstance(node, c_ast.Return):
            return [] if node.expr is None else [Stmt(tuple(self._accesses(node.expr)), coord)]
        if isinstance(node, EXPRESSION_STATEMENTS):
            return [Stmt(tuple(self._accesses(node)), coord)]
        raise KernelError(coord, f"unsupported statement ({type(node).__name__})")

    def _check_stray_pragma(self, node: c_ast.Pragma) -> None:
        pragma = self._pragmas.parse(node)
        if pragma is not None and pragma.kind in LOOP_DIRECTIVES:
            raise KernelError(self._pragmas.coord(pragma),
                              f"#pragma HLS {pragma.kind} must open a loop body "
                              "(be its first statement)")

    def _if(self, node: c_ast.If) -> If:
        cond = condition_dnf(node.cond, self._scope())
        cond_accesses = () if cond is not None else tuple(self._accesses(node.cond))
        then = tuple(self._statement(node.iftrue))
        orelse = tuple(self._statement(node.iffalse)) if node.iffalse is not None else ()
        return If(cond, then, orelse, node_coord(node), cond_accesses)

    # ------------------------------------------------------------ accesses

    def _accesses(self, node: c_ast.Node) -> list[Access]:
        found: list[Access] = []
        self._collect(node, found)
        return found

    def _collect(self, node: c_ast.Node, out: list[Access]) -> None:
        if isinstance(node, c_ast.ArrayRef):
            self._reference(node, out, ("read",))
        elif isinstance(node, c_ast.Assignment):
            self._collect(node.rvalue, out)
            kinds = ("write",) if node.op == "=" else ("read", "write")
            self._target(node.lvalue, out, kinds)
        elif isinstance(node, c_ast.UnaryOp) and node.op in INCREMENTS:
            self._target(node.expr, out, ("read", "write"))
        elif not (isinstance(node, c_ast.UnaryOp) and node.op == "sizeof"):
            for _, child in node.children():
                self._collect(child, out)

    def _target(self, node: c_ast.Node, out: list[Access], kinds: tuple[str, ...]) -> None:
        if isinstance(node, c_ast.ID) and node.name in self._iterators:
            raise KernelError(node_coord(node),
                              f"assignment to loop iterator '{node.name}' inside its loop")
        if isinstance(node, c_ast.ArrayRef):
            self._reference(node, out, kinds)
        else:
            self._collect(node, out)

    def _reference(self, node: c_ast.ArrayRef, out: list[Access],
                   kinds: tuple[str, ...]) -> None:
        """``A[e0][e1]...``: the reads inside its subscripts, then its own accesses."""
        subscripts, base = [], node
        while isinstance(base, c_ast.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        for subscript in subscripts:
            self._collect(subscript, out)
        coord = node_coord(node)
        name = base.name if isinstance(base, c_ast.ID) else None
        if name not in self._arrays:
            if name in self._pointers:
                raise KernelError(self._pointers[name],
                                  f"array parameter '{name}' needs a fixed size")
            raise KernelError(coord, "only arrays declared with a fixed size can be "
                                     "indexed" + (f" ('{name}' is not one)" if name else ""))
        rank = len(self._arrays[name].shape)
        if len(subscripts) != rank:
            raise KernelError(coord, f"array '{name}' has {rank} dimension(s) but is "
                                     f"indexed with {len(subscripts)} subscript(s)")
        scope = self._scope()
        index = tuple(quasi_affine(s, scope) for s in subscripts)
        for kind in kinds:
            out.append(Access(name, index, kind, self._ref_ids[id(node)], coord))

    # ------------------------------------------------------------ loops

    def _loop(self, node: c_ast.For, label: str | None) -> Loop:
        """``for (i = start; i <op> limit; i += step)`` as a normalized :class:`Loop`."""
        coord = node_coord(node)
        if node.init is None or node.cond is None or node.next is None:
            raise KernelError(coord, "a loop needs an initialization, a condition and "
                                     "an increment")
        var, start = self._loop_init(node.init)
        if var in self._iterators:
            raise KernelError(node_coord(node.init),
                              f"loop iterator '{var}' is already used by an enclosing loop")
        step = self._loop_step(node.next, var)
        op, limit = self._loop_cond(node.cond, var)
        init, bound = self._loop_bounds(op, start, limit, step, node.cond)
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        items = list(items or ())
        header = 0
        while header < len(items) and isinstance(items[header], c_ast.Pragma):
            header += 1
        pipeline_ii, unroll = self._loop_pragmas(items[:header])
        self._iterators.append(var)
        shadowed = self._temporaries.pop(var, None)
        try:
            body = tuple(self._items(items[header:]))
        finally:
            self._iterators.pop()
            if shadowed is not None:
                self._temporaries[var] = shadowed
        loop = Loop(var, init, bound, step, body, label or f"L{coord.line}", coord,
                    pipeline_ii, unroll)
        if pipeline_ii is not None:
            _check_unrollable(loop, loop.body)
        return loop

    def _loop_init(self, init: c_ast.Node) -> tuple[str, c_ast.Node]:
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init:
            return init.decls[0].name, init.decls[0].init
        if (isinstance(init, c_ast.Assignment) and init.op == "="
                and isinstance(init.lvalue, c_ast.ID)):
            return init.lvalue.name, init.rvalue
        raise KernelError(node_coord(init), "unsupported loop initialization "
                                            "(expected 'int i = <start>' or 'i = <start>')")

    def _loop_step(self, nxt: c_ast.Node, var: str) -> int:
        step = _step_of(nxt, var, self._scope())
        if step is None:
            raise KernelError(node_coord(nxt), f"unsupported loop increment (expected "
                                               f"{var}++, {var}--, {var} += S, {var} -= S "
                                               f"or {var} = {var} + S with a constant S)")
        if step == 0:
            raise KernelError(node_coord(nxt), "loop step must not be zero")
        return step

    def _loop_cond(self, cond: c_ast.Node, var: str) -> tuple[str, c_ast.Node]:
        if isinstance(cond, c_ast.BinaryOp) and cond.op in COMPARISONS and cond.op != "==":
            if _is_id(cond.left, var):
                return cond.op, cond.right
            if _is_id(cond.right, var):
                return FLIPPED[cond.op], cond.left
        raise KernelError(node_coord(cond), f"loop condition must compare the iterator "
                                            f"'{var}' with a bound (<, <=, >, >=, !=)")

    def _loop_bounds(self, op, start, limit, step, cond):
        """(init terms, inclusive bound terms): a max of starts and a min of limits
        when the loop counts up, a min of starts and a max of limits when it counts down."""
        increasing = step > 0
        if op == "!=":
            if step not in UNIT_STEPS:
                raise KernelError(node_coord(cond), "a '!=' loop condition needs a step "
                                                    "of +1 or -1")
            op = "<" if increasing else ">"
        if op not in (("<", "<=") if increasing else (">", ">=")):
            raise KernelError(node_coord(cond), f"loop condition '{op}' does not match "
                                                f"the loop's step {step:+d}")
        scope = self._scope()
        init = min_max_terms(start, "max" if increasing else "min", scope)
        if init is None:
            raise KernelError(node_coord(start), _NOT_AFFINE.format(
                what="start", kind="max" if increasing else "min"))
        bound = min_max_terms(limit, "min" if increasing else "max", scope)
        if bound is None:
            raise KernelError(node_coord(limit), _NOT_AFFINE.format(
                what="bound", kind="min" if increasing else "max"))
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(node_coord(start), "a strided loop needs a single start")
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _loop_pragmas(self, header: list[c_ast.Pragma]) -> tuple[int | None, int | None]:
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


_NOT_AFFINE = ("loop {what} must be affine in constants and enclosing loop iterators "
               "(or a {kind}() of such)")


def _check_literals(ast: c_ast.FileAST) -> None:
    """Every integer literal of the file fits in 64 bits (:func:`int_literal` raises),
    also where its value is never folded (``x * 99999999999999999999``)."""
    for node in walk(ast):
        if isinstance(node, c_ast.Constant):
            int_literal(node)


def _is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _step_of(nxt: c_ast.Node, var: str, scope: Scope) -> int | None:
    """The constant step of ``i++``, ``i--``, ``i += S``, ``i -= S``, or ``i = e`` with
    ``e - i`` a constant (``i = i + S``, ``i = S + i``, ``i = i - S``); else None."""
    if isinstance(nxt, c_ast.UnaryOp) and _is_id(nxt.expr, var):
        return INCREMENTS.get(nxt.op)
    if not (isinstance(nxt, c_ast.Assignment) and _is_id(nxt.lvalue, var)):
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
