"""Calls to the kernel file's own functions: what the lowering needs to inline them.

Every function reachable from the top is inlined at its call sites, as Vitis HLS does
for a function called inside a pipelined loop (and for ``#pragma HLS inline``): its
loops become loops of the caller, with fresh iterator names where the caller's are
taken, and its accesses join the caller's.  A ``dataflow`` region needs nothing more:
each process (a call or a loop) is then its own loop nest, so its own pipelines, and
one banking per array serves them all.

An array parameter names the caller's memory (C passes arrays by address).  A
:class:`Binding` says which: the callee's ``p[e1]...[ek]`` is the caller's
``A[c1]...[cm][e1]...[ek]``, where ``c1..cm`` (the *prefix*) are the subscripts of the
argument: ``f(A)`` binds with an empty prefix, ``f(A[i])`` (a row of a 2-D array passed
as a 1-D one) with the prefix ``(i,)``.  The parameter's declared shape must be the
rest of the array's shape (its first size may be left out or be any, as C decays it).

A scalar parameter that the callee never assigns is its argument's value: a constant
when the argument folds to one, else its quasi-affine expression over the caller's
iterators (or unknown: indices through it are irregular).  One that it assigns is a
scalar of the callee that starts at that value and follows its assignments
(``width = 240;`` before the loops, as Xilinx's line-buffer convolution writes).  A pointer parameter given
no array of the kernel (``&x`` of a scalar) is a scalar's address: indexing it is
then an error where it is indexed.  An element of an array of ``hls::stream`` passed
by reference (``f(s[k])``) is a FIFO, no memory: only elements of the kernel's arrays
are refused there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import KernelError
from ..ir import Array
from . import cnodes as N
from .cexpr import Scope, Truth, held_truth, quasi_affine
from .declarations import element_type
from .scalars import boolean

T = ci.TypeKind
ASSIGNING = ("p++", "++", "p--", "--")
# Library routines that copy or fill memory: the statement lowering models them.
MEMORY_ROUTINES = frozenset(("memcpy", "memset", "memmove"))


def memory_routine(name: str) -> str | None:
    """The routine of :data:`MEMORY_ROUTINES` that ``name`` calls (``std::memcpy`` and
    the compiler's ``__builtin_memcpy`` are ``memcpy``), None for any other name."""
    base = name.removeprefix("std::").removeprefix("__builtin_")
    return base if base in MEMORY_ROUTINES else None
MEMBER = "member ref expr"  # what a field access is (cnodes.Other.what)


@dataclass(frozen=True, slots=True)
class Binding:
    """A name that denotes (part of) an array: ``name[e1][e2]...`` is
    ``array[prefix..., offset + e1, e2, ...]`` (None: an irregular index).  With
    ``field``, it denotes an array field of the struct element ``array[prefix...]``
    (``A[i].buf``, ``p->key``): like the field written in place, each of its elements
    is part of that element's value, so ``name[e1]...`` is ``array[prefix...]``."""

    array: str
    prefix: tuple[E.Expr | None, ...] = ()
    offset: E.Expr | None = E.Const(0)
    field: bool = False

    def index(self, own: tuple[E.Expr | None, ...]) -> tuple[E.Expr | None, ...]:
        """The array's index for the subscripts ``own`` written on this name; for a
        ``field``, the struct element's (``prefix``) whatever they are."""
        if not own or self.field:
            return self.prefix
        return self.prefix + (_plus(self.offset, own[0]),) + own[1:]

    def part(self, own: tuple[E.Expr | None, ...], offset: E.Expr | None) -> "Binding":
        """What ``&name[own...][0] + offset`` denotes (a row, a pointer into one; for a
        ``field``, the same field)."""
        if self.field:
            return self
        if not own:
            return Binding(self.array, self.prefix, _plus(self.offset, offset))
        return Binding(self.array, self.index(own), offset)


@dataclass(frozen=True, slots=True)
class StreamPort:
    """The streams a name reaches in the FIFO array of a stream argument of the top:
    ``index`` the first of its stream dimensions (all of them: one stream)."""

    array: str
    index: tuple[E.Expr | None, ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryArgument:
    """An argument that hands over memory, not a value: ``base[subscripts...] +
    offset`` with ``base`` a visible array name (``A``, ``A[i]``, ``A + k``,
    ``&A[i][k]``); ``offset`` None for none."""

    base: Binding
    subscripts: tuple[N.Node, ...]
    offset: N.Node | None
    field: tuple[N.Node, ...] | None = None

    def binding(self, scope: Scope) -> Binding:
        """What it denotes; for an array field of a struct element ``base[subscripts]``
        (``field``: the expressions written on the field), a field binding."""
        own = tuple(quasi_affine(s, scope) for s in self.subscripts)
        if self.field is not None:
            return Binding(self.base.array, self.base.index(own), field=True)
        offset = E.Const(0) if self.offset is None else quasi_affine(self.offset, scope)
        return self.base.part(own, offset)

    def nodes(self) -> tuple[N.Node, ...]:
        """The expressions the caller evaluates to pass it."""
        return self.subscripts + (() if self.offset is None else (self.offset,)) + (
            self.field or ())


@dataclass(frozen=True, slots=True)
class ImplicitObject:
    """The object a method's call runs on, whose members its body names (``buf``,
    ``this->buf``).  ``element``: a struct element of a kernel array (``W[i].f()``,
    ``p->f()`` with ``p`` bound to memory), whose members are parts of its value (a
    field binding, as ``W[i].buf[k]`` is an access of ``W[i]``); else ``name``: the
    text of a struct variable (``w``, ``w.inner``), whose array members arraypart does
    not model (:meth:`.accesses.AccessLowering._warn_unmodelled_field`), None for an
    object it cannot name; ``argument``: that variable is an argument of the top."""

    element: Binding | None = None
    name: str | None = None
    argument: bool = False

    def member(self, field: str) -> "ImplicitObject":
        """The object that its member ``field`` is (``this->inner.f()``)."""
        if self.element is not None or self.name is None:
            return self
        return ImplicitObject(None, f"{self.name}.{field}", self.argument)


def implicit_object(node: N.Node, current: ImplicitObject | None,
                    visible: Mapping[str, Binding], arrays: Mapping[str, Array],
                    scope: Scope, arguments: frozenset[str],
                    references: Mapping[str, Binding] = {}) -> ImplicitObject:
    """The object ``node`` (a method call's first argument) denotes: ``this`` is the
    ``current`` one, ``W[i]`` (every dimension subscripted) and ``p->`` / ``p[k]`` of
    a name bound to memory an element, as is ``o[i].in[k]`` (an element of a member
    array is part of the element ``o[i]``, as ``o[i].in[k].a[0]`` is an access of it),
    and a reference of ``references`` (bound to an element, which it denotes) with
    its members, ``w`` or ``w.inner`` a struct variable (``arguments``: the top's
    parameters)."""
    node = N.without_casts(node)
    if isinstance(node, N.Id) and node.name in references:
        return ImplicitObject(references[node.name])
    if isinstance(node, N.UnaryOp) and node.op == "*":
        node = N.ArrayRef(node.coord, -1, -1, node.expr, N.Constant(node.coord, -1, -1, 0))
    if isinstance(node, N.Other) and node.what == N.THIS:
        return current or ImplicitObject()
    if isinstance(node, N.Other) and node.what == MEMBER and node.parts:
        return implicit_object(node.parts[0], current, visible, arrays, scope,
                               arguments, references).member(node.name)
    if isinstance(node, N.Other) and node.what == MEMBER:  # inner.f() in a method
        return (current or ImplicitObject()).member(node.name)
    base = node
    while isinstance(base, N.ArrayRef):
        base = N.without_casts(base.name)
    if _is_member(base) and base is not node:  # o[i].in[k].f(): o[i]'s own member
        inner = implicit_object(base, current, visible, arrays, scope, arguments,
                                references)
        if inner.element is not None:
            return inner
    found = _subscripted(node, visible)
    if found is not None:
        base, subscripts = found
        rank = _rank(base, arrays)
        if not subscripts and isinstance(node, N.Id) and rank == 1:
            subscripts = (N.Constant(node.coord, -1, -1, 0),)  # p->f(): p[0]
        whole = len(subscripts) == rank or base.field
        return ImplicitObject(_element(base, subscripts, scope) if whole else None)
    if isinstance(node, N.Id):
        return ImplicitObject(None, node.name, node.name in arguments)
    return ImplicitObject()


def returned_off_memory(node: N.FuncCall, current: ImplicitObject | None,
                        visible: Mapping[str, Binding], arrays: Mapping[str, Array],
                        scope: Scope, callees: Mapping[str, N.FuncDef | None],
                        file_arrays: frozenset[str]) -> bool:
    """Whether what the call ``node`` returns, which a method is then called on (hlslib's
    ``result[w] = v``: ``operator=`` of the proxy ``result.operator[](w)`` returns), can
    refer to no memory of the kernel, so that the method writes no element unseen: the
    chain of calls starts at an object that is no array element (a struct variable, a
    temporary), no call of it is given an array, and no function of it, nor one they
    call, names a file-scope array (an undefined one, a library's, cannot)."""
    chain: list[N.FuncCall] = []
    root: N.Node | None = node
    while isinstance(root, N.FuncCall):
        chain.append(root)
        root = N.without_casts(root.args[0]) if root.method else None
    given = [a for call in chain for a in N.passed(call)] + ([root] if root else [])
    if any(isinstance(n, N.Id) and n.name in visible for a in given for n in N.walk(a)):
        return False
    if root is not None and implicit_object(root, current, visible, arrays, scope,
                                            frozenset()).element is not None:
        return False
    return not _names_arrays([callees.get(c.key) for c in chain], callees, file_arrays)


def _names_arrays(funcs: list[N.FuncDef | None], callees: Mapping[str, N.FuncDef | None],
                  file_arrays: frozenset[str]) -> bool:
    """Some function of ``funcs``, or one they call (transitively), names one of the
    ``file_arrays`` that no parameter or local of its own shadows."""
    seen: set[str] = set()
    while funcs:
        func = funcs.pop()
        if func is None or func.key in seen:
            continue
        seen.add(func.key)
        own = {p.name for p in func.params} | {
            n.name for n in func.nodes if isinstance(n, N.Decl)}
        if any(isinstance(n, N.Id) and n.name in file_arrays - own for n in func.nodes):
            return True
        funcs += [callees.get(n.key) for n in func.nodes if isinstance(n, N.FuncCall)]
    return False


@dataclass(frozen=True, slots=True)
class Arguments:
    """What a call binds in its callee: array parameters, constant scalars, affine
    scalars and scalars that hold a condition (``put(i > 1, ...)``: the callee's
    ``if (en)`` is ``i > 1``), by parameter name."""

    arrays: dict[str, Binding]
    constants: dict[str, int]
    values: dict[str, E.Expr]
    conditions: dict[str, Truth]


def _plus(a: E.Expr | None, b: E.Expr | None) -> E.Expr | None:
    return None if a is None or b is None else E.add(a, b)


def definitions(funcs: list[N.FuncDef], top: N.FuncDef) -> dict[str, N.FuncDef | None]:
    """The file's function definitions other than the top, by key (a template's
    instantiation by its own, :mod:`.templates`, else by name); None for a name defined
    twice (overloads, which a call by name cannot tell apart)."""
    found: dict[str, N.FuncDef | None] = {}
    for f in funcs:
        if f is not top:
            found[f.key] = None if f.key in found or f.key == top.name else f
    return found


def known_calls(node: N.Node, callees: Mapping[str, N.FuncDef]) -> Iterator[N.FuncCall]:
    """The calls of the file's own functions in ``node``, in evaluation order (a call's
    arguments, and the calls inside them, before the call)."""
    if isinstance(node, N.FuncCall):
        for arg in node.args:
            yield from known_calls(arg, callees)
        if node.key in callees:
            yield node
        return
    for child in node.children():
        if child is not None:
            yield from known_calls(child, callees)


def bind(call: N.FuncCall, callee: N.FuncDef, visible: Mapping[str, Binding],
         arrays: Mapping[str, Array], scope: Scope) -> Arguments:
    """The parameters of ``callee`` bound to the arguments of ``call`` (module doc)."""
    bound, constants, values, conditions = {}, {}, {}, {}
    assigned = _assigned_names(callee.nodes)
    for param, arg in zip(callee.params, call_arguments(call, callee)):
        memory = memory_argument(arg, visible, arrays)
        if memory is not None and param.name in assigned:
            moved = _assignment_of(callee.nodes, param.name)
            raise KernelError(moved.coord, f"'{callee.name}' moves its array parameter "
                                           f"'{param.name}': arraypart follows an array "
                                           "parameter by the subscripts written on it; "
                                           f"index it ({param.name}[k]) instead")
        if memory is not None:
            _same_elements(param, arg, arrays.get(memory.base.array))
            bound[param.name] = _array_binding(param, arg, memory.binding(scope), arrays,
                                               callee)
        elif struct_handle(param, callee.nodes):
            bound.update(object_fields(arg, visible, param.name))
        elif is_array_parameter(param) and any(
                isinstance(n, N.Id) and n.name in visible for n in N.walk(arg)):
            raise KernelError(arg.coord, f"argument '{param.name}' of '{callee.name}' must "
                                         "be an array of the kernel, a row of one or a "
                                         "pointer into one (A, A[i], A + k, &A[i][k])")
        else:
            value = quasi_affine(arg, scope)
            if isinstance(value, E.Const) and param.name not in assigned:
                constants[param.name] = value.value
            elif value is not None:
                values[param.name] = value  # a scalar's start, which assignments follow
            elif param.name not in assigned and not _reference(param):
                truth = held_truth(arg, scope, boolean(param))
                if truth is not None:
                    conditions[param.name] = truth
    return Arguments(bound, constants, values, conditions)


def call_aliases(call: N.FuncCall, callee: N.FuncDef, bound: Mapping[str, Binding],
                 visible: Mapping[str, Binding], file_arrays: Mapping[str, Binding],
                 obj: ImplicitObject | None) -> frozenset[str]:
    """The arrays that two names of ``callee``'s text reach in ``call``
    (:attr:`arraypart.ir.Loop.call_aliases`): one that two of its ways to memory
    denote (its array parameters and the array fields of a struct variable a method
    runs on, ``bound``; the file-scope arrays of ``file_arrays`` that its text names, a
    struct variable's fields by the variable's name; the struct element ``obj`` a
    method runs on), and one that
    the argument of a reference parameter names (``f(A, A[3])`` gives ``int &s`` an
    element of ``A``: a write of ``s`` may be one of ``p[i]``).  ``visible``: the
    caller's array names.  A local of ``callee`` is a memory of its own."""
    named = {n.name for n in callee.nodes if isinstance(n, N.Id)}
    ways = [b.array for b in bound.values()]
    ways += [b.array for name, b in file_arrays.items()
             if name.split(".")[0] in named and name not in bound]
    if obj is not None and obj.element is not None:
        ways.append(obj.element.array)
    aliases = {array for array in ways if ways.count(array) > 1}
    for param, arg in zip(callee.params, call_arguments(call, callee)):
        if param.name not in bound and _reference(param):
            aliases |= {visible[n.name].array for n in N.walk(arg)
                        if isinstance(n, N.Id) and n.name in visible}
    return frozenset(aliases)


def call_arguments(call: N.FuncCall, callee: N.FuncDef) -> tuple[N.Node, ...]:
    """The call's arguments, the parameter's default (``int n = N``, in the definition
    or its first declaration) where the call leaves it out (clang passes such an
    argument without text, :data:`.cnodes.DEFAULT_ARGUMENT`)."""
    args = N.passed(call)
    if len(args) != len(callee.params):
        raise KernelError(call.coord, f"call of '{callee.name}' with {len(args)} "
                                      f"argument(s): the kernel file defines a "
                                      f"'{callee.name}' of {len(callee.params)} parameter(s) "
                                      "only, so the one called (an overload) has no "
                                      "definition arraypart can see")
    return tuple(param.init if (isinstance(arg, N.Other) and arg.what == N.DEFAULT_ARGUMENT
                                and param.init is not None) else arg
                 for param, arg in zip(callee.params, args))


def pointer_binding(decl: N.Decl, nodes: tuple[N.Node, ...],
                    visible: Mapping[str, Binding], arrays: Mapping[str, Array], scope: Scope
                    ) -> tuple[Binding, tuple[N.Node, ...]] | None:
    """What a local pointer declared at memory denotes (``T *row = A[i];``,
    ``T *p = &A[i][k];``, ``T *p = A + k;``; a reference to a row, ``T (&row)[N] = A[i];``,
    as the pointer ``row`` would), and the expressions its start evaluates
    (subscripts, offset): like an array parameter bound to that argument, ``row[e]``
    and ``*(row + e)`` are elements of ``A``.  None when ``decl`` is no pointer or its
    start is no memory of the kernel.  ``nodes``: those of the function it is declared in
    (:attr:`.cnodes.FuncDef.nodes`); a pointer they assign again (``p++``) is an error,
    since arraypart follows memory by the subscripts written on it."""
    if decl.ctype is None or decl.init is None or not (
            decl.ctype.canonical_kind == ci.TypeKind.POINTER or array_reference(decl)):
        return None
    memory = memory_argument(decl.init, visible, arrays)
    if memory is None:
        return None
    _same_elements(decl, decl.init, arrays.get(memory.base.array))
    if decl.name in _assigned_names(nodes):
        moved = _assignment_of(nodes, decl.name)
        raise KernelError(moved.coord, f"pointer '{decl.name}' into array "
                                       f"'{memory.base.array}' is moved: arraypart "
                                       "follows memory by the subscripts written on it; "
                                       f"index it ({decl.name}[k]) instead")
    return memory.binding(scope), memory.nodes()


def _same_elements(decl: N.Decl, init: N.Node, array: Array | None) -> None:
    """A pointer that a written cast points into ``array`` (``(char *)&A[0]``) must
    step by ``array``'s elements: ``p[k]`` is then ``A[k]``, where a pointer to a
    smaller or larger type would address parts or runs of elements."""
    if array is None or not (isinstance(init, N.Cast) and not init.implicit):
        return
    t = decl.ctype.clang.get_canonical() if decl.ctype is not None else None
    if t is None or t.kind not in (T.POINTER, T.CONSTANTARRAY, T.INCOMPLETEARRAY):
        return
    pointee = t.get_pointee() if t.kind == T.POINTER else t.element_type
    try:
        bits = element_type(pointee, decl.name, init.coord)[1]
    except KernelError:
        bits = pointee.get_size() * 8
    if bits != array.elem_bits:
        raise KernelError(init.coord, (
            f"'{decl.name}' reads array '{array.name}' ({array.elem_type}) as "
            f"'{pointee.spelling}': arraypart follows memory by the elements of its own "
            f"type; index '{array.name}' itself"))


def array_reference(decl: N.Decl) -> bool:
    """``decl`` is a reference to an array of fixed size (``float (&row)[8]``)."""
    t = decl.ctype.clang if decl.ctype is not None else None
    return (t is not None and t.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE)
            and t.get_pointee().get_canonical().kind == T.CONSTANTARRAY)


def memory_argument(arg: N.Node, visible: Mapping[str, Binding],
                    arrays: Mapping[str, Array]) -> MemoryArgument | None:
    """The memory ``arg`` hands over (``A``, a row ``A[i]``, ``A + k``, ``&A[i][k]``,
    an array field ``A[i].buf``, ``p->key + k``), or None when it is a value (an
    element, a scalar); casts dropped (``(char *)&A[0]`` hands over ``A``)."""
    arg = N.without_casts(arg)
    field = _field_argument(arg, visible, arrays)
    if field is not None:
        return field
    if isinstance(arg, N.UnaryOp) and arg.op == "&":
        found = _subscripted(arg.expr, visible)
        if found is None or not found[1]:
            return None if found is None else MemoryArgument(found[0], (), None)
        base, subscripts = found
        return MemoryArgument(base, subscripts[:-1], subscripts[-1])
    if isinstance(arg, N.BinaryOp) and arg.op in ("+", "-"):
        terms = signed_terms(arg, 1)  # A[i] + j + 1 is (A[i] + j) + 1
        for k, (term, sign) in enumerate(terms):
            found = _whole(term, visible, arrays) if sign > 0 else None
            rest = terms[:k] + terms[k + 1:]
            if found is None and sign > 0:
                found = _address(term, visible)  # &A[i][1] + j is &A[i][1 + j]
                rest = rest + [(found[1][-1], 1)] if found is not None else rest
                found = None if found is None else (found[0], found[1][:-1])
            if found is not None:
                offset = rest[0][0] if len(rest) == 1 and rest[0][1] > 0 else term_sum(
                    rest, arg)
                return MemoryArgument(found[0], found[1], offset)
        return None
    found = _whole(arg, visible, arrays)
    return None if found is None else MemoryArgument(found[0], found[1], None)


def element_binding(node: N.Node, visible: Mapping[str, Binding],
                    arrays: Mapping[str, Array], scope: Scope
                    ) -> tuple[Binding, tuple[N.Node, ...]] | None:
    """The element ``node`` names with a subscript in every dimension (``s[i + 1]``,
    casts dropped), as a field binding (:class:`Binding`: its members are parts of its
    value), and the subscripts written; None for anything else."""
    found = _subscripted(node, visible)
    if found is None:
        return None
    base, subscripts = found
    if len(subscripts) != _rank(base, arrays) or base.field:
        return None
    return _element(base, subscripts, scope), subscripts


def _rank(base: Binding, arrays: Mapping[str, Array]) -> int:
    """The dimensions a name bound to ``base`` has: its array's, less those it fixes."""
    return len(arrays[base.array].shape) - len(base.prefix)


def _element(base: Binding, subscripts: tuple[N.Node, ...], scope: Scope) -> Binding:
    """The element ``base[subscripts]`` as a field binding: its members are parts of
    its value (``W[i].buf[k]`` is an access of ``W[i]``)."""
    own = tuple(quasi_affine(s, scope) for s in subscripts)
    return Binding(base.array, base.index(own), field=True)


def reference_chain(node: N.Node) -> tuple[N.Node, list[N.Node]]:
    """The node at the root of the ``&``, ``*`` and ``[]`` around it (casts dropped)
    and the subscripts written on it, first dimension first (``s[k]`` of an array of
    streams, ``(*p)``, ``&s``)."""
    subscripts: list[N.Node] = []
    while True:
        node = N.without_casts(node)
        if isinstance(node, N.UnaryOp) and node.op in ("&", "*"):
            node = node.expr
        elif isinstance(node, N.ArrayRef):
            subscripts.insert(0, node.subscript)
            node = node.name
        else:
            return node, subscripts


def _address(node: N.Node, visible: Mapping[str, Binding]):
    """``(base, subscripts)`` of ``&A[e0]...[ek]`` (k >= 0) on a visible array name."""
    node = N.without_casts(node)
    if not (isinstance(node, N.UnaryOp) and node.op == "&"):
        return None
    found = _subscripted(node.expr, visible)
    return found if found is not None and found[1] else None


def signed_terms(node: N.Node, sign: int) -> list[tuple[N.Node, int]]:
    """The terms of a sum of ``+`` and ``-`` (casts dropped), each with its sign."""
    node = N.without_casts(node)
    if isinstance(node, N.BinaryOp) and node.op in ("+", "-"):
        return (signed_terms(node.left, sign)
                + signed_terms(node.right, sign if node.op == "+" else -sign))
    return [(node, sign)]


def term_sum(terms: list[tuple[N.Node, int]], at: N.Node) -> N.Node:
    """The node of ``term0 ± term1 ± ...`` (0 for none), placed at ``at``."""
    total: N.Node = N.Constant(at.coord, -1, -1, 0)
    for term, sign in terms:
        total = N.BinaryOp(at.coord, -1, -1, "+" if sign > 0 else "-", total, term)
    return total


def _whole(node: N.Node, visible, arrays):
    """``(base, subscripts)`` of a visible array subscripted less than its rank (a
    field binding: with any subscripts, all in the field)."""
    found = _subscripted(node, visible)
    if found is None:
        return None
    base, subscripts = found
    rank = len(arrays[base.array].shape) - len(base.prefix)
    return found if len(subscripts) < rank or base.field else None


def _field_argument(arg: N.Node, visible, arrays) -> MemoryArgument | None:
    """An array field of a struct element of a visible array, handed over as memory:
    ``A[i].buf`` (the element ``A[i]``) or ``p->key`` (the element ``p[0]``), with
    ``&...[k]``, ``... + k`` or a row's subscripts written on the field (evaluated,
    part of the field).  None for any other argument."""
    written: list[N.Node] = []
    node = arg
    if isinstance(node, N.UnaryOp) and node.op == "&":
        node = node.expr
    elif isinstance(node, N.BinaryOp) and node.op == "+":
        node, other = (node.left, node.right) if _is_member(N.without_casts(node.left)) or (
            isinstance(node.left, N.ArrayRef)) else (node.right, node.left)
        written.append(other)
    node = N.without_casts(node)
    while isinstance(node, N.ArrayRef):
        written.insert(0, node.subscript)
        node = node.name
    if not _is_member(node):
        return None
    found = _subscripted(node.parts[0], visible)
    if found is None:
        return None
    base, subscripts = found
    rank = len(arrays[base.array].shape) - len(base.prefix)
    if not subscripts and isinstance(node.parts[0], N.Id):  # p->key: p[0].key
        subscripts = (N.Constant(node.coord, -1, -1, 0),) * min(rank, 1)
    if len(subscripts) != rank and not base.field:
        return None
    return MemoryArgument(base, subscripts, None, tuple(written))


def _is_member(node: N.Node) -> bool:
    """``s.f`` or ``p->f`` (:class:`.cnodes.Other`, the object first)."""
    return isinstance(node, N.Other) and node.what == MEMBER and bool(node.parts)


def _subscripted(node: N.Node, visible: Mapping[str, Binding]):
    """``(binding, subscripts written)`` when ``node`` is a visible array name (or a
    struct variable's array field, :func:`member_path`) with zero or more subscripts
    (casts around it ignored); else None."""
    node = N.without_casts(node)
    subscripts: list[N.Node] = []
    while isinstance(node, N.ArrayRef):
        subscripts.insert(0, node.subscript)
        node = node.name
    name = node.name if isinstance(node, N.Id) else member_path(node)
    if name in visible:
        return visible[name], tuple(subscripts)
    return None


# The name under which a method's body sees the array fields of its object
# (:func:`member_path`, :func:`object_fields`).
THIS_OBJECT = "this"


def member_path(node: N.Node) -> str | None:
    """The name of a struct variable's field among the visible arrays
    (:attr:`arraypart.ir.Array.member`): ``w.buf``, ``w.in.buf``; ``p->buf`` of a
    pointer to a struct is ``p.buf``; in a method, its object's ``buf``, ``this->buf``
    and ``inner.buf`` are ``this.buf`` and ``this.inner.buf``.  None for a node that
    is no member access of a name (a member of an array element, of a call's
    result)."""
    names: list[str] = []
    while isinstance(node, N.Other) and node.what == MEMBER:
        names.insert(0, node.name)
        if not node.parts:  # a member of the implicit this
            return ".".join([THIS_OBJECT] + names)
        node = N.without_casts(node.parts[0])
    if not names:
        return None
    root = _object_root_name(node)
    return None if root is None else ".".join([root] + names)


def _object_root_name(node: N.Node) -> str | None:
    """The name a member path starts from: a variable's, or ``this``."""
    if isinstance(node, N.Id):
        return node.name
    if isinstance(node, N.Other) and node.what == N.THIS:
        return THIS_OBJECT
    return None


def object_fields(node: N.Node, visible: Mapping[str, Binding],
                  name: str) -> dict[str, Binding]:
    """The array fields of the struct object ``node`` names or points at (``w``,
    ``w.in``, ``&w``, ``this``), each under ``name`` and its path: what a struct
    reference or pointer ``name`` (or a method's ``this``) binds to the object."""
    node = N.without_casts(node)
    while isinstance(node, N.UnaryOp) and node.op in ("&", "*"):
        node = N.without_casts(node.expr)
    path = _object_root_name(node) or member_path(node)
    if path is None:
        return {}
    return {name + key[len(path):]: binding for key, binding in visible.items()
            if key.startswith(path + ".")}


def _array_binding(param: N.Decl, arg: N.Node, binding: Binding,
                   arrays: Mapping[str, Array], callee: N.FuncDef) -> Binding:
    """``binding`` for an array parameter, whose declared shape must be the rest of
    the array's shape (its first size aside, which C does not pass; the accesses
    themselves are later proved inside the array)."""
    if binding.field:
        return binding  # the field's own shape is the struct's business
    array = arrays[binding.array]
    rest = array.shape[len(binding.prefix):]
    if len(rest) > 1 and _template_reference(param):
        written = "".join(f"[{n}]" for n in rest)
        raise KernelError(arg.coord, (
            f"'{callee.name}' takes '{param.name}' as a template's reference, bound here "
            f"to {len(rest)} dimensions of array '{array.name}': in the template's text "
            f"{param.name}[i] may be a row or an element, which check --trace cannot tell "
            f"apart (write the type: {array.elem_type} (&{param.name}){written})"))
    declared = _declared_shape(param)
    if not rest or declared is None or len(declared) != len(rest) or any(
            d is not None and d != r for d, r in zip(declared[1:], rest[1:])):
        shown = "x".join(str(d) for d in rest) or "an element"
        want = "a scalar" if declared is None else "a pointer" if declared == (None,) else (
            "x".join("?" if d is None else str(d) for d in declared))
        raise KernelError(arg.coord, f"'{callee.name}' takes '{param.name}' as {want}, "
                                     f"but the argument is {shown} of array "
                                     f"'{array.name}': pass an array or row of the "
                                     "parameter's shape")
    return binding


def _template_reference(param: N.Decl) -> bool:
    """``param`` is ``T &x`` with ``T`` a template parameter (its pointee's type is
    dependent in the template's text)."""
    t = param.ctype.clang if param.ctype is not None else None
    return (t is not None and t.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE)
            and t.get_pointee().kind == T.UNEXPOSED)


def _declared_shape(param: N.Decl) -> tuple[int | None, ...] | None:
    """The sizes of an array parameter (None for an unsized first one; a pointer to
    scalars is one unsized dimension); None when it is no array or pointer."""
    t = param.ctype.clang if param.ctype is not None else None
    if t is None:
        return None
    if t.kind not in N.ARRAY_TYPE_KINDS + (T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        # a template parameter bound to a pointer (``T buf`` with T = int *), a typedef
        t = t.get_canonical()
    if t.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        t = t.get_pointee()
        if t.kind not in N.ARRAY_TYPE_KINDS + (T.POINTER,):
            t = t.get_canonical()  # T &x with T = int[32], a typedef of an array
    sizes: list[int | None] = []
    if t.kind == T.POINTER:
        pointee = t.get_pointee()
        if pointee.get_canonical().kind in N.ARRAY_TYPE_KINDS:
            # int (*q)[C], the type C gives int q[][C]: rows, the first one unsized
            sizes, t = [None], pointee.get_canonical()
        elif pointee.kind not in N.ARRAY_TYPE_KINDS + (T.POINTER,):
            return (None,)
    while t.kind in N.ARRAY_TYPE_KINDS:
        sizes.append(t.get_array_size() if t.kind == T.CONSTANTARRAY else None)
        t = t.element_type
    return tuple(sizes) or None


def struct_handle(decl: N.Decl, nodes: Iterable[N.Node]) -> bool:
    """``decl`` (a parameter, a local) is a reference or a pointer to a struct (``W
    &s``, ``W *p``) that the function's ``nodes`` never point elsewhere: the struct
    variable it is bound to, whose array fields it names (a struct passed by value
    is a copy, a memory of the callee's own)."""
    t = decl.ctype.clang if decl.ctype is not None else None
    return (t is not None and t.get_canonical().kind in (T.LVALUEREFERENCE,
                                                          T.RVALUEREFERENCE, T.POINTER)
            and t.get_canonical().get_pointee().get_canonical().kind == T.RECORD
            and decl.name not in _assigned_names(nodes))


def is_array_parameter(param: N.Decl) -> bool:
    shape = _declared_shape(param)
    return shape is not None


def _reference(param: N.Decl) -> bool:
    """``param`` is a reference (to ``const`` or not, through a typedef too)."""
    t = param.ctype.clang if param.ctype is not None else None
    return t is not None and t.get_canonical().kind in (T.LVALUEREFERENCE,
                                                       T.RVALUEREFERENCE)


def _by_reference(param: N.Decl) -> bool:
    t = param.ctype.clang if param.ctype is not None else None
    return t is not None and t.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE) and not (
        t.get_pointee().is_const_qualified())


def _assigned_names(nodes: Iterable[N.Node]) -> set[str]:
    """Names assigned (``=``, ``op=``, ``++``, ``--``) by any of ``nodes``."""
    return {target.name for _, target in _assignments(nodes)}


def _assignment_of(nodes: Iterable[N.Node], name: str) -> N.Node:
    """The first assignment of ``name`` among ``nodes``."""
    return next(node for node, target in _assignments(nodes) if target.name == name)


def _assignments(nodes: Iterable[N.Node]) -> Iterator[tuple[N.Node, N.Id]]:
    """Each assignment (``=``, ``op=``, ``++``, ``--``) of a name among ``nodes``, with
    the name assigned."""
    for node in nodes:
        target = None
        if isinstance(node, N.Assignment):
            target = node.lvalue
        elif isinstance(node, N.UnaryOp) and node.op in ASSIGNING:
            target = node.expr
        if isinstance(target, N.Id):
            yield node, target
