"""The lowering's array accesses: part of :class:`.lower._Lowering`.

An expression's accesses in evaluation order: subscripts before the reference they
index, the right side before the left, a compound assignment's read before its write.
``A[e0][e1]`` names the memory its binding says (:class:`.calls.Binding`: a callee's
parameter is the caller's array, row or field); ``*p``, ``*(p + e)`` and ``p->f`` are
the elements ``p[0]``, ``p[e]`` and ``p[0]``; ``A[i].f`` and ``A[i].f[k]`` are the
struct element ``A[i]``; an array passed to a call is no access, its subscripts are
read.  The state these methods share is :class:`.lower._Lowering`'s, documented there.

C evaluates the right operand of ``L && R`` only where L holds, of ``L || R`` only where
it fails, and one branch of ``c ? a : b``.  Where that condition is affine the operand's
accesses are *guarded* (:class:`Guarded`): as statements they run under an ``if`` on it
(:meth:`AccessLowering._guarded_statements`), so ``j > 0 ? A[j - 1] : 0`` never reads
``A[-1]`` and two branches never share a cycle's ports.  Under a data-dependent
condition they run wherever it may hold: a superset.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Access, Conjunction, If, Node, Stmt
from . import calls
from .calls import Binding
from .cexpr import condition_dnf, quasi_affine, tree_key
from .routines import partial_write
from . import scalars as S
from . import cnodes as N

MEMBER = "member ref expr"
STREAM_READS = frozenset({"read", "read_nb", "operator>>"})
STREAM_WRITES = frozenset({"write", "write_nb", "operator<<"})
INCREMENTS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
# ap_int / ap_fixed part selects that an assignment may write through: ``A[i].range(h,
# l) = v``, ``A[i](h, l) = v`` and ``A[i][k] = v`` write some bits of the element and
# keep the others.
PART_SELECTS = frozenset({"range", "bit", "operator()", "operator[]"})
# ap_int / ap_fixed members that change some bits of their object in place.
BIT_UPDATES = frozenset({"set_bit", "set", "clear", "invert", "reverse", "lrotate",
                         "rrotate", "b_not"})


@dataclass(frozen=True, slots=True)
class Guarded:
    """The accesses of an operand that runs only where the affine condition ``cond``
    holds (``holds``) or fails: ``accesses`` may hold guarded operands of its own."""

    cond: tuple[Conjunction, ...]
    holds: bool
    accesses: tuple["Access | Guarded", ...]


def _conditional(found: list) -> list:
    """``found`` with every access marked ``conditional`` (an operand that runs on
    values the model does not know, yet counted wherever it may run)."""
    return [replace(item, conditional=True) if isinstance(item, Access)
            else replace(item, accesses=tuple(_conditional(list(item.accesses))))
            for item in found]


def flatten(found) -> list[Access]:
    """Every access of ``found``, guarded or not, in evaluation order."""
    out: list[Access] = []
    for item in found:
        out.extend(flatten(item.accesses) if isinstance(item, Guarded) else (item,))
    return out


def guarded_statements(found, coord: Coord) -> list[Node]:
    """The statement of ``found``'s unguarded accesses, then an ``if`` per guarded
    operand (its accesses in the branch where the operand runs), then, when there is
    one, the statement of the outermost store (``Access.outermost``), which C makes
    after every operand."""
    guarded = [item for item in found if isinstance(item, Guarded)]
    unguarded = [a for a in found if isinstance(a, Access)]
    store = [a for a in unguarded if a.outermost] if guarded else []
    nodes: list[Node] = [Stmt(tuple(a for a in unguarded if not (store and a.outermost)),
                              coord)]
    for item in guarded:
        inner = tuple(guarded_statements(item.accesses, coord))
        nodes.append(If(item.cond, inner, (), coord) if item.holds
                     else If(item.cond, (), inner, coord))
    return nodes + ([Stmt(tuple(store), coord)] if store else [])


class AccessLowering:
    """The accesses of a :class:`.lower._Lowering` run's statements."""

    def _accesses(self, node: N.Node) -> list[Access]:
        """Every access of ``node``, those of a guarded operand included."""
        found: list = []
        self._collect(node, found)
        return flatten(found)

    def _guarded_statements(self, node: N.Node, coord: Coord) -> list[Node]:
        """``node``'s accesses as statements, guarded operands under their ``if``, the
        writes of its own store (an assignment's or increment's target) marked
        ``outermost``."""
        found: list = []
        start = self._collect(node, found)
        if start is not None:
            found[start:] = [replace(a, outermost=True) if isinstance(a, Access)
                             and a.kind == "write" else a for a in found[start:]]
        return guarded_statements(found, coord)

    def _operand(self, cond: N.Node, holds: bool, operand: N.Node | None, out: list) -> None:
        """The accesses of ``operand``, which runs where ``cond`` holds (or fails)."""
        if operand is None:
            return
        inner: list = []
        self._collect(operand, inner)
        dnf = condition_dnf(cond, self._scope())
        if dnf is None:
            out.extend(_conditional(inner))
        elif inner:
            out.append(Guarded(dnf, holds, tuple(inner)))

    def _no_calls(self, node: N.Node | None, where: str) -> None:
        """Calls are inlined as statements: one in a condition or loop header is an
        error."""
        call = next(calls.known_calls(node, self._callees), None) if node else None
        if call is not None:
            raise KernelError(call.coord, f"call of '{call.name}' in {where}: arraypart "
                                          "inlines calls that are statements; assign its "
                                          "result to a variable first")

    def _collect(self, node: N.Node, out: list) -> int | None:
        """Append ``node``'s accesses to ``out`` in evaluation order; for an assignment
        or increment, return where its target's begin there."""
        if not isinstance(node, N.ArrayRef):  # text a macro's reference may share
            self._expression_spans.add((node.start, node.end))
        if isinstance(node, N.BinaryOp) and node.op in ("&&", "||"):
            self._collect(node.left, out)
            self._operand(node.left, node.op == "&&", node.right, out)
        elif isinstance(node, N.TernaryOp) and id(node) in self._chosen:
            self._collect(node.cond, out)
            self._collect(node.iftrue if self._chosen[id(node)] else node.iffalse, out)
        elif isinstance(node, N.TernaryOp):
            self._collect(node.cond, out)
            self._operand(node.cond, True, node.iftrue, out)
            self._operand(node.cond, False, node.iffalse, out)
        elif (transfer := self._stream_transfer(node)) is not None:
            self._transfer(node, *transfer, out)
        elif _element_call(node, BIT_UPDATES):
            self._bit_update(_element_call(node, BIT_UPDATES), out)
        elif (isinstance(node, N.FuncCall) and not node.method
              and calls.memory_routine(node.name) and node.key not in self._callees):
            self._memory_routine(node, out)
        elif isinstance(node, N.FuncCall):
            self._call_arguments(node, out)
        elif isinstance(node, N.ArrayRef):
            self._reference(node, out, ("read",))
        elif isinstance(node, N.Assignment):
            self._pointer_assignment(node)
            self._collect(node.rvalue, out)
            kinds = ("write",) if node.op == "=" else ("read", "write")
            start = len(out)
            self._target(node.lvalue, out, kinds)
            return start
        elif isinstance(node, N.UnaryOp) and node.op in INCREMENTS:
            start = len(out)
            self._target(node.expr, out, ("read", "write"))
            return start
        elif isinstance(node, N.UnaryOp) and node.op == "*":
            self._dereference(node, out, ("read",))
        elif isinstance(node, N.UnaryOp) and node.op == "&" and isinstance(
                root := _object_root(node.expr), N.Id) and root.name in self._element_refs:
            raise KernelError(node.coord, (
                "the address of a reference bound to an array element: arraypart follows "
                "the element through the reference's name only; take the address of the "
                "element itself (&A[i])"))
        elif _element_member(node):
            self._member(node, out, ("read",))
        elif self._pointer_member(node) is not None:
            self._pointer_element(node, self._pointer_member(node), None, out, ("read",),
                                  node.name or None)
        elif self._element_object(node) is not None:
            self._element(self._element_object(node), [], self._node_ref(node), node.coord,
                          out, ("read",), _outer_member(node))
        else:
            self._warn_whole_struct(node)
            for child in node.children():
                if child is not None and not (_is_member(node) and child is node.parts[0]
                                              and calls.member_path(node) is not None):
                    self._collect(child, out)

    def _stream_transfer(self, node: N.Node
                         ) -> tuple[object, str, N.Node, tuple[N.Node, ...]] | None:
        """(stream port, ``read`` or ``write``, the stream's expression, the value's
        operands) of one transfer on a stream of a FIFO argument: ``s.read()``,
        ``s.read(x)``, ``s >> x``, ``s.read_nb(x)``, ``s.write(v)``, ``s << v``,
        ``s.write_nb(v)``."""
        if isinstance(node, N.FuncCall) and node.method:
            name, args = node.name, node.args
        elif isinstance(node, N.BinaryOp) and node.op in (">>", "<<"):
            name, args = f"operator{node.op}", (node.left, node.right)
        else:
            return None
        kind = ("read" if name in STREAM_READS else "write" if name in STREAM_WRITES
                else None)
        port = self._stream_port(args[0]) if kind is not None and args else None
        return None if port is None else (port, kind, args[0], tuple(args[1:]))

    def _transfer(self, node: N.Node, port, kind: str, stream: N.Node,
                  values: tuple[N.Node, ...], out: list[Access]) -> None:
        """One element through a FIFO port (:meth:`_stream_transfer`): a read stores
        into its operand (``s >> A[i]`` writes ``A[i]``), a write reads its value.  The
        stream is the port's index (any, where it is not all known), the element any."""
        for subscript in calls.reference_chain(stream)[1]:
            self._collect(subscript, out)
        if kind == "write":
            for value in values:
                self._collect(value, out)
        if id(node) not in self._ref_ids:
            self._ref_ids[id(node)] = self._next_ref
            self._next_ref += 1
        streams = len(self._arrays[port.array].shape) - 1
        index = port.index if len(port.index) == streams else (None,) * streams
        out.append(Access(port.array, index + (None,), kind, self._ref_ids[id(node)],
                          node.coord, call=self._call_id))
        if kind == "read":
            for value in values:
                self._target(value, out, ("write",))

    def _call_arguments(self, call: N.FuncCall, out: list[Access]) -> None:
        """A call's arguments: an array (or row) passed down is no access here, only its
        subscripts are read; a function arraypart cannot see may not receive one.  The
        object of a method the kernel file defines is no access either (the inlined
        body's members are), only its subscripts are read; nor is a struct variable
        bound to a reference or pointer parameter of one (the body's accesses of its
        array fields are)."""
        callee = self._callees.get(call.key)
        referred = set() if callee is None else {
            id(arg) for param, arg in zip(callee.params, calls.call_arguments(call, callee))
            if calls.struct_handle(param, callee.nodes)
            and calls.object_fields(arg, self._visible, param.name)}
        for k, arg in enumerate(call.args):
            if k == 0 and call.method and call.key in self._callees:
                for subscript in _object_subscripts(arg):
                    self._collect(subscript, out)
                continue
            if id(arg) in referred:
                continue
            if k == 0 and call.own_method:
                self._refuse_unseen_method(call, arg)
            memory = calls.memory_argument(arg, self._visible, self._arrays)
            if memory is None:
                self._warn_unseen_struct(call, arg)
                if self._may_write(call, k):
                    _refuse_chosen_target(N.without_casts(arg),
                                          "bound to a reference the callee may write")
                if self._updated_element(call, k):
                    first = len(out)
                    self._target(arg, out, ("read", "write"))
                    out[first:] = [replace(a, by_reference=True) if a.ref_id ==
                                   out[-1].ref_id else a for a in out[first:]]
                else:
                    self._collect(arg, out)
                continue
            if call.key not in self._callees:
                raise KernelError(arg.coord, f"array '{memory.base.array}' is passed to "
                                             f"'{call.name or 'a function'}', whose "
                                             "definition is not in the kernel file: "
                                             "arraypart cannot see its accesses (define "
                                             "it, or its template, in the kernel file, "
                                             "not in a header)")
            for node in memory.nodes():
                self._collect(node, out)

    def _refuse_unseen_method(self, call: N.FuncCall, obj: N.Node) -> None:
        """A method of the kernel's own class that the lowering does not inline, called
        on an element of a kernel array (or on a member of one), is a located error:
        counting the call as a read of the element would miss whatever the method
        writes (copies and routed reads made from such a count are wrong code)."""
        found = _object_root(obj)
        if not (isinstance(found, N.Id) and found.name in self._visible):
            return
        raise KernelError(call.coord, (
            f"method '{call.name}' is called on an element of array "
            f"'{self._visible[found.name].array}', but arraypart cannot inline it (its "
            "definition is not in the kernel file, or it is declared only): it would not "
            "see what the method writes in the element; define the method in the kernel "
            "file, in its class or out of it"))

    def _may_write(self, call: N.FuncCall, k: int) -> bool:
        """Argument ``k`` binds a reference to non-const that the callee may write
        through: any such of a function the kernel file does not define; of one it
        defines, unless its body only reads the parameter
        (:func:`.scalars.never_written`: a template's ``T &x`` that only reads)."""
        if not (k < len(call.by_reference) and call.by_reference[k]):
            return False
        callee = self._callees.get(call.key)
        if callee is None or callee.body is None or k >= len(callee.params):
            return True
        return not S.never_written(callee.body, callee.params[k].name, self._callees)

    def _updated_element(self, call: N.FuncCall, k: int) -> bool:
        """Argument ``k`` is an array element (or a member of one) that binds a
        reference to non-const the callee may write through (``std::swap(A[i],
        A[j])``, a compare-and-swap ``cas(int &a, int &b)`` of the kernel, whose body
        sees a scalar; :meth:`_may_write`): the call reads and writes it."""
        arg = N.without_casts(call.args[k])
        return self._may_write(call, k) and (isinstance(arg, N.ArrayRef)
                                             or _element_member(arg)
                                             or self._element_object(arg) is not None)

    def _pointer_assignment(self, node: N.Assignment) -> None:
        """``p = &A[k]`` (a pointer given memory after its declaration) is an error:
        arraypart follows memory through the pointers it declares
        (:func:`.calls.pointer_binding`), and ``*p`` would go uncounted."""
        if not node.pointer or not isinstance(N.without_casts(node.lvalue), N.Id) or any(
                sign < 0 and calls.memory_argument(term, self._visible, self._arrays)
                for term, sign in calls.signed_terms(node.rvalue, 1)):
            return  # &A[k] - &A[0] is a number of elements, no pointer
        memory = calls.memory_argument(node.rvalue, self._visible, self._arrays)
        if memory is not None:
            name = N.without_casts(node.lvalue).name
            raise KernelError(node.coord, (
                f"'{name}' is given memory of array '{memory.base.array}' after its "
                "declaration: arraypart follows a pointer from the memory its declaration "
                f"names; declare it there (T *{name} = ...) and index it ({name}[k])"))

    def _target(self, node: N.Node, out: list[Access], kinds: tuple[str, ...]) -> None:
        node = N.without_casts(node)
        _refuse_chosen_target(node, "assigned to or stepped")
        if isinstance(node, N.Id) and node.name in self._frame_vars:
            raise KernelError(node.coord,
                              f"assignment to loop iterator '{node.name}' inside its loop")
        if isinstance(node, N.ArrayRef):
            self._reference(node, out, kinds)
        elif isinstance(node, N.UnaryOp) and node.op == "*":
            self._dereference(node, out, kinds)
        elif _element_member(node):
            self._member(node, out, kinds)
        elif _element_call(node, PART_SELECTS):
            self._bit_update(_element_call(node, PART_SELECTS), out)
        elif self._pointer_member(node) is not None:
            self._pointer_element(node, self._pointer_member(node), None, out, kinds,
                                  node.name or None)
        elif self._element_object(node) is not None:
            self._element(self._element_object(node), [], self._node_ref(node), node.coord,
                          out, kinds, _outer_member(node))
        else:
            self._collect(node, out)

    def _element_object(self, node: N.Node) -> Binding | None:
        """The element whose part ``node`` is, when it names a member of the object of
        the method being lowered (``buf``, ``this->buf``, ``inner.x``) and that object
        is an element of a kernel array (:class:`.calls.ImplicitObject`), or a
        reference bound to an element (``next``, ``next.x``; ``_element_refs``); else
        None."""
        root = _object_root(node)
        if isinstance(root, N.Id) and root.name in self._element_refs and (
                root is node or _is_member(node)):
            return self._element_refs[root.name]
        if not (isinstance(node, N.Other) and node.what == MEMBER) or self._object is None:
            return None
        return self._object.element if _own_member(node) else None

    def _node_ref(self, node: N.Node) -> int:
        """The ``ref_id`` of ``node``'s accesses (a new one for a node that the text's
        array references do not list: ``this->count``)."""
        if id(node) not in self._ref_ids:
            self._ref_ids[id(node)] = self._next_ref
            self._next_ref += 1
        return self._ref_ids[id(node)]

    def _bit_update(self, args: tuple[N.Node, ...], out: list[Access]) -> None:
        """Some bits of the element ``args[0]`` change and the others are kept: it is
        read, then written (after the other arguments are read)."""
        for argument in args[1:]:
            self._collect(argument, out)
        self._target(args[0], out, ("read", "write"))

    def _rewrites(self, array) -> bool:
        """Whether code generation rewrites the references to ``array`` written here
        (a local of the top, or a struct's field routed apart from it, outside a
        function pipeline: DESIGN §6's bank arrays)."""
        return (len(self._calls) == 1 and self._function_pipeline is None
                and not array.interface and (array.member is None or array.member_routed))

    def _pointer_member(self, node: N.Node) -> str | None:
        """``p`` when ``node`` is ``p->f`` (``p[0].f``) with ``p`` a visible array
        name, else None."""
        if not (isinstance(node, N.Other) and node.what == MEMBER):
            return None
        pointer = _first(node.parts)
        if isinstance(pointer, N.Id) and pointer.name in self._visible:
            return pointer.name
        return None

    def _member(self, node: N.Other, out: list[Access], kinds: tuple[str, ...]) -> None:
        """``A[i].x`` (or ``A[i].x.y``): member x of one element is read or written."""
        rest: list[N.Node] = []
        while not isinstance(_first(node.parts), N.ArrayRef):
            rest += node.parts[1:]
            node = _first(node.parts)
        self._reference(node.parts[0], out, kinds, node.name or None)
        for part in list(node.parts[1:]) + rest:
            self._collect(part, out)

    def _reference(self, node: N.ArrayRef, out: list[Access],
                   kinds: tuple[str, ...], field: str | None = None) -> None:
        """``A[e0][e1]...``: the reads inside its subscripts, then its own accesses;
        a byte view ``((T *)&A[e])[k]`` is ``A[e]``'s, in part (:meth:`_byte_view`)."""
        subscripts, base = [], node
        while isinstance(base, N.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        offset = self._offset_pointer(base) if len(subscripts) == 1 else None
        if offset is not None:  # (p + e)[k] is *(p + e + k)
            pointer, terms = offset
            self._pointer_element(node, pointer, calls.term_sum(
                terms + [(subscripts[0], 1)], node), out, kinds, field)
            return
        for subscript in subscripts:
            self._collect(subscript, out)
        coord = node.coord
        name = base.name if isinstance(base, N.Id) else None
        if isinstance(base, N.Other) and base.what == MEMBER:
            # A[i].f[k]: an array field of an array's element is part of the element's
            # value, the access is A[i]'s; w.f[k] of a struct variable is an element
            # of the field, a memory of its own (ir.Array.member)
            element = self._element_object(base)
            if element is not None:  # buf[k] in a method called on W[i]
                self._element(element, [], self._node_ref(node), coord, out, kinds,
                              _outer_member(base))
                return
            name = calls.member_path(base)
            if name not in self._visible:
                self._refuse_unknown_struct(base)
                self._warn_unmodelled_field(base)
                self._target(base, out, kinds)
                return
        if self._names_fifo(name, self._visible):
            return  # a FIFO: s[k].read() is no memory access
        if isinstance(base, N.Cast) and calls.memory_argument(base, self._visible,
                                                              self._arrays) is not None:
            view = self._byte_view(base, subscripts[0]) if len(subscripts) == 1 else None
            if view is not None:  # a byte of A[e], the element as *(T *)&A[e] is
                start = len(out)
                self._target(view[0], out, partial_write(kinds))
                out[start:] = _in_part(out[start:], view[1])
                return
            raise KernelError(coord, "a subscript on a pointer cast of an array "
                                     "('((T *)A)[k]') is not modelled: write '*(T *)&A[e]', "
                                     "e the element where the value starts (a byte view "
                                     "'((T *)&A[e])[k]' is, with a constant k that stays "
                                     "within A[e])")
        if name not in self._visible:
            raise KernelError(coord, "only arrays declared with a fixed size can be "
                                     "indexed" + (f" ('{name}' is not one)" if name else ""))
        binding = self._visible[name]
        rank = len(self._arrays[binding.array].shape) - len(binding.prefix)
        if len(subscripts) != rank and not binding.field:
            raise KernelError(coord, f"array '{name}' has {rank} dimension(s) but is "
                                     f"indexed with {len(subscripts)} subscript(s)")
        span = (node.start, node.end)
        if node.start < 0 or node.end <= node.start:
            self._keep_as_written(binding.array, (
                f"the reference at {coord} is written in {_where_written(node)}: "
                "write it in the kernel file to let arraypart rewrite it"))
        elif self._spans.setdefault(span, id(node)) != id(node) or (
                node.in_macro and span in self._expression_spans):
            self._keep_as_written(binding.array, (
                f"the text at {coord} stands for more than this reference (a macro: "
                "SQ(buf[i]), SUM3(i), STORE(i, v)?): write the reference out of the "
                "macro, or assign it to a variable first, to let arraypart rewrite it"))
        self._element(binding, subscripts, self._ref_ids[id(node)], coord, out, kinds,
                      field)

    def _keep_as_written(self, array: str, why: str) -> None:
        """Records ``why`` a reference to ``array`` cannot be rewritten, so that the
        array keeps its references as written: pragma-only
        (:attr:`arraypart.ir.Array.kept_reference`).  A subscript's part that changes
        state (``buf[w++]``, a call) would be evaluated more than once (an explicit
        banking's bank and offset) or not at all (a lane routed to its bank); a
        reference with no text of its own in the kernel file (in an included file, in
        a macro's body used in another macro's argument) has nothing to rewrite."""
        if array not in self._kept_references and self._rewrites(self._arrays[array]):
            self._kept_references[array] = why

    def _offset_pointer(self, base: N.Node) -> tuple[str, list] | None:
        """For the base of ``(p + e1 - e2 ...)[k]``, a sum with one visible array name
        added: that name and the other terms; None for any other base."""
        terms = calls.signed_terms(base, 1)
        pointers = [n for n, (t, sign) in enumerate(terms) if sign > 0
                    and isinstance(t, N.Id) and t.name in self._visible]
        if len(terms) < 2 or len(pointers) != 1:
            return None
        return terms.pop(pointers[0])[0].name, terms

    def _element(self, binding: Binding, subscripts: list[N.Node], ref_id: int,
                 coord: Coord, out: list[Access], kinds: tuple[str, ...],
                 field: str | None = None) -> None:
        """The accesses of one element of ``binding``, ``subscripts`` written on it."""
        scope = self._scope()
        own = tuple(quasi_affine(s, scope) for s in subscripts)
        index = binding.index(own)
        arguments = tuple((len(binding.prefix) + d, name, value)
                          for d, s in enumerate(subscripts)
                          for name, value in sorted(self._argument_sources_of(s)))
        for subscript, e in zip(subscripts, index[len(binding.prefix):]):
            if e is None:
                self._warn_opaque(subscript)
        effect = next((e for s in subscripts if (e := S.side_effect(s)) is not None), None)
        if effect is not None:
            self._keep_as_written(binding.array, (
                f"a subscript at {effect.coord} {S.effect_text(effect)}: assign that "
                "subscript to a variable first to let arraypart rewrite it"))
        same = None if effect is not None or None not in index else self._same_value(
            binding, subscripts, field)
        template = Access(binding.array, index, kinds[0], ref_id, coord, field,
                          changes_state=effect is not None,
                          foreign=self._foreign_dims(own, len(binding.prefix)),
                          arguments=arguments, same_value=same,
                          narrowed=any(_through_narrow(s, self._types) for s in subscripts))
        self._add_element(template, kinds, out)

    def _same_value(self, binding: Binding, subscripts: list[N.Node],
                    field: str | None) -> tuple | None:
        """:attr:`ir.Access.same_value` of a read of ``binding`` through ``subscripts``,
        in the current inlined call (a callee's two calls bind its parameters anew):
        None where the binding is not one known part of its array (``p = A + j``, j
        from the data), where a subscript reads anything but the current function's
        integer scalars, iterators and constants (an array, a call, a member, a
        pointer's target, a file-scope variable), or a scalar whose address or a
        reference to it the function takes (written then by another name) or that its
        statement writes (``(t = A[k], k = m, A[k])``)."""
        if binding.offset is None or None in binding.prefix or any(
                isinstance(n, (N.ArrayRef, N.FuncCall, N.Other))
                or (isinstance(n, N.UnaryOp) and n.op in ("*", "&"))
                or (isinstance(n, N.Constant) and n.value is None)  # 1.5f: no value kept
                for s in subscripts for n in N.walk(s)):
            return None
        names = set().union(*map(N.identifiers, subscripts))
        if not names <= (self._scalars | set(self._frame_vars) | set(self._constants)) \
                or names & self._aliased_scalars() or (
                    self._current_statement is not None and names & S.written(
                        self._current_statement, self._scalars, self._callees)):
            return None
        key = (self._call_id, binding, field, tuple(map(tree_key, subscripts)),
               tuple((n, self._writes.get(n, 0), self._temporaries.get(n))
                     for n in sorted(names)))
        try:
            hash(key)
        except TypeError:  # a node field without a value to compare by
            return None
        self._keyed = True
        return key

    def _aliased_scalars(self) -> frozenset[str]:
        """The current function's scalars that something may write other than by name
        (:func:`.scalars.escaped`), once per function text."""
        function = self._calls[-1]
        if id(function) not in self._aliased:
            self._aliased[id(function)] = frozenset(
                S.escaped(function.body, frozenset(self._scalars)))
        return self._aliased[id(function)]

    def _foreign_dims(self, own: tuple[E.Expr | None, ...], first: int) -> frozenset[int]:
        """The dimensions, ``own`` written from dimension ``first`` on, whose index
        reads an iterator of an unrolled loop around the call whose text holds it
        (:attr:`arraypart.ir.Access.foreign`)."""
        return frozenset(first + d for d, e in enumerate(own)
                         if e is not None and E.variables(e) & self._foreign_lanes)

    def _add_element(self, template: Access, kinds: tuple[str, ...],
                     out: list[Access]) -> None:
        """``template``'s access once per kind in ``kinds`` (its ``same_value`` for a
        read only); its first index reaches a pointer argument's extent, and the
        function whose text holds it uses the array
        (:attr:`arraypart.ir.Array.functions`)."""
        array = template.array
        if array in self._reached and not self._followed:
            self._reached[array].append((template.index[0], dict(self._ranges),
                                         dict(self._ends)))
        user = self._calls[-1].name if len(self._calls) > 1 else self._function_pipeline
        if user is not None and user not in self._functions.setdefault(array, []):
            self._functions[array].append(user)
        out.extend(replace(template, kind=kind, same_value=template.same_value
                           if kind == "read" else None, call=self._call_id,
                           per_call=self._per_call.get(array))
                   for kind in kinds)

    def _warn_unseen_struct(self, call: N.FuncCall, arg: N.Node) -> None:
        """A struct with an array field, passed to a function the kernel file does not
        define: whatever it does with those arrays is unseen (said once per call); the
        object of such a method's call is a located error (the method is handed the
        struct's arrays for certain, and a loop's II would be claimed without them)."""
        if call.key in self._callees or not isinstance(arg, N.Id) or self._followed:
            return
        decl = next((d for d in list(self._func.params) + list(self._func.nodes)
                     if isinstance(d, N.Decl) and d.name == arg.name), None)
        if decl is None or decl.ctype is None or not decl.ctype.array_fields:
            return
        if call.method and arg is call.args[0]:
            where = ("which the kernel file declares without defining it" if "::" in (
                call.name or "") else "whose definition is neither in the kernel file nor "
                "in a header of your own")
            raise KernelError(call.coord, (
                f"'{arg.name}' holds arrays and its method '{call.name}' is called here, "
                f"{where}: arraypart cannot see what the method does with them (define it "
                "in the kernel file or a header it includes, in its class or out of it)"))
        self._warn_once(arg.coord, (
            f"'{arg.name}' holds arrays and is passed to '{call.name}', which the kernel "
            "file does not define: arraypart does not see what it does with them (define "
            "it in the kernel file to have them analysed)"))

    def _warn_unmodelled_field(self, field: N.Other) -> None:
        """An array field that Vitis makes a memory of its own, reached where
        arraypart does not follow it: of a struct variable (``ir.Array.member``)
        through a method that hands out references into the struct, a by-value copy
        or a pointer moved; of a local array's element (``A[i].f[k]``, counted as an
        access of the element ``A[i]``, so two words of the field read in one cycle
        count as one).  A pipeline may overload its ports unseen (the top's struct
        arguments stay aggregated: their array fields are registers).  Said once
        per field and pipeline, where the pipeline first reaches it: each such
        loop's II is only assumed."""
        said = self._unmodelled_owner(field)
        if said is None or self._followed or not (self._pipelines
                                                  or self._function_pipeline):
            return
        pipeline = (self._pipeline_coords[-1] if self._pipeline_coords
                    else self._function_pipeline)
        if (said, pipeline) not in self._unmodelled_said:
            self._unmodelled_said.add((said, pipeline))
            self._warn_once(field.coord, (
                f"{said}: Vitis implements it as a memory of its own (it disaggregates "
                "local and global structs), but arraypart does not count its accesses "
                "word by word here, so the II reported for this loop assumes its ports "
                "keep up; declare it as an array of its own to have it counted"))

    def _unmodelled_owner(self, field: N.Other) -> str | None:
        """What :meth:`_warn_unmodelled_field` says ``field`` is, None when it is no
        memory of its own (a field of a top's struct argument)."""
        root = field
        while isinstance(root, N.Other) and root.what == MEMBER and root.parts:
            root = _first(root.parts)
        if _own_member(field):  # buf[k] in a method: the object's member
            obj = self._object or calls.ImplicitObject()
            if obj.argument:
                return None
            return (f"'{obj.name}.{field.name}' is an array inside struct '{obj.name}'"
                    if obj.name is not None else f"'{field.name}' is an array member "
                    "of the object this method is called on")
        base = calls.reference_chain(root)[0]  # A of A[i].f, p of p->f, w.rows of w.rows[i].f
        key = base.name if isinstance(base, N.Id) else calls.member_path(base)
        binding = self._visible.get(key) if key is not None else None
        if binding is not None:  # an element of an array, or one a pointer reaches
            return None if self._arrays[binding.array].interface else (
                f"'{field.name}' is an array field of the elements of "
                f"'{binding.array}', whose accesses arraypart counts as accesses of "
                "the element")
        if isinstance(root, N.Id) and not any(p.name == root.name
                                              for p in self._func.params):
            return f"'{root.name}.{field.name}' is an array inside struct '{root.name}'"
        return None

    def _refuse_unknown_struct(self, field: N.Other) -> None:
        """An array field reached through a choice between struct variables (``(c ? w
        : v).buf[k]``) or a cast to another struct type (``((V *)&w)->buf[k]``; one
        to the struct's own type is the struct, :func:`.clangtu.member_object`): which
        memory, and which of its elements, is reached arraypart cannot tell, so it is
        a located error rather than an access left uncounted."""
        root = field
        while isinstance(root, N.Other) and root.what == MEMBER and root.parts:
            root = root.parts[0]
        if not isinstance(root, (N.TernaryOp, N.Cast)):
            return
        named = sorted({n.name for n in N.walk(root) if isinstance(n, N.Id) and any(
            k.startswith(n.name + ".") for k in self._visible)})
        if named:
            what = ("a choice between struct variables" if isinstance(root, N.TernaryOp)
                    else "a cast to another struct type")
            raise KernelError(root.coord, (
                f"arraypart cannot tell which array field '{field.name}' reaches through "
                f"{what} ({', '.join(named)}): name the field of each struct variable "
                f"itself ({named[0]}.{field.name}[...])"))

    def _refuse_unknown_handle(self, decl: N.Decl) -> None:
        """``W *p = c ? &w : &v;`` (a reference or pointer to a struct bound to no one
        struct variable its initializer names) and then ``p->buf[k]``, an array field
        of those variables: a located error at that use, as for :meth:`_refuse_unknown_struct`
        (probe 38b F6: the access was warned and uncounted)."""
        named = {n.name for n in N.walk(decl.init) if isinstance(n, N.Id)}
        structs = sorted({k.split(".")[0] for k in self._visible if "." in k} & named)
        fields = {f"{decl.name}.{k.split('.', 1)[1]}" for k in self._visible
                  if k.split(".")[0] in structs}
        use = next((n for n in self._calls[-1].nodes if isinstance(n, N.Other)
                    and n.what == MEMBER and calls.member_path(n) in fields), None)
        if use is not None:
            raise KernelError(use.coord, (
                f"arraypart cannot tell which of {', '.join(structs)} '{decl.name}' "
                f"(declared at {decl.coord}) refers to, so which memory its array field "
                f"'{use.name}' is here: name the field of each struct variable itself"))

    def _warn_whole_struct(self, node: N.Node) -> None:
        """A struct variable with array fields named whole where cycles are shared (a
        copy, an assignment, a by-value argument): Vitis reads or writes every element
        of its fields there, which arraypart does not count; said once per variable
        and pipeline."""
        if not isinstance(node, N.Id) or self._followed or not (
                self._pipelines or self._unrolled or self._function_pipeline):
            return
        fields = sorted(k for k in self._visible if k.startswith(node.name + "."))
        if not fields:
            return
        self._warn_once(node.coord, (
            f"'{node.name}' is used whole here (a copy, an assignment, a by-value "
            f"argument): Vitis reads or writes every element of its array fields "
            f"({', '.join(fields)}) here, which arraypart does not count, so the II "
            "reported for this loop assumes their ports keep up; copy the fields "
            "element by element to have them counted"))

    def _dereference(self, node: N.UnaryOp, out: list[Access],
                     kinds: tuple[str, ...]) -> None:
        """:meth:`_dereference_of`, through a cast to a narrower type a partial
        access (:func:`.routines.partial_write`, ``ir.Access.partial``)."""
        if not self._narrow_dereference(node):
            self._dereference_of(node, out, kinds)
            return
        start = len(out)
        self._dereference_of(node, out, partial_write(kinds))
        out[start:] = _in_part(out[start:], self._cast_width(node)[0].base.array)

    def _dereference_of(self, node: N.UnaryOp, out: list[Access],
                        kinds: tuple[str, ...]) -> None:
        """``*p`` and ``*(p + e1 - e2 ...)`` on a visible array name are ``p[0]`` and
        ``p[e1 - e2 ...]`` (:meth:`_pointer_element`).  Any other dereference of an
        expression that names a visible array is an error: its element is unknown.
        ``*&E`` is ``E``; ``*(T *)&A[e]`` with T wider than A's element is the
        elements it covers (:meth:`.routines.RoutineLowering._wide_dereference`).  A
        narrower T written is a write in part (:func:`.routines.partial_write`).  A
        FIFO pointer may step (``*p++``): any element (:meth:`_fifo_element`).
        ``*this`` in a method called on an array element is that whole element
        (``*this = t`` writes it, ``Q t = *this`` reads it)."""
        address = N.without_casts(node.expr)
        if (isinstance(address, N.Other) and address.what == N.THIS
                and self._object is not None and self._object.element is not None):
            self._element(self._object.element, [], self._node_ref(node), node.coord, out,
                          kinds)
            return
        wide = self._wide_dereference(node)
        if wide is not None:
            self._wide_elements(node, wide, kinds, out)
            return
        if isinstance(address, N.UnaryOp) and address.op == "&":
            self._target(address.expr, out, kinds)
            return
        stepped = address.expr if (isinstance(address, N.UnaryOp)
                                   and address.op in INCREMENTS) else address
        if self._fifo_pointer(stepped):
            self._fifo_element(node, stepped.name, out, kinds)
            return
        terms = calls.signed_terms(node.expr, 1)
        pointers = [n for n, (t, sign) in enumerate(terms) if sign > 0
                    and self._array_named(t) is not None]
        if len(pointers) != 1:
            self._collect(node.expr, out)  # its own subscripts and '*' (or their errors)
            if any(self._array_named(n) is not None for n in N.walk(node.expr)):
                raise KernelError(node.coord, "arraypart cannot tell which element this "
                                              "'*' reaches: write the array with "
                                              "subscripts (A[i][k])")
            return
        pointer = self._array_named(terms.pop(pointers[0])[0])
        self._pointer_element(node, pointer, calls.term_sum(terms, node), out, kinds)

    def _array_named(self, node: N.Node) -> str | None:
        """The visible array ``node`` names: ``p``, or a struct variable's array field
        ``w.buf`` (:func:`.calls.member_path`, ``*(w.buf + k)`` being ``w.buf[k]``)."""
        name = node.name if isinstance(node, N.Id) else calls.member_path(node)
        return name if name in self._visible else None

    def _fifo_pointer(self, node: N.Node) -> bool:
        """Whether ``node`` names a pointer argument of the top with a FIFO interface."""
        if not (isinstance(node, N.Id) and node.name in self._visible):
            return False
        array = self._arrays[self._visible[node.name].array]
        return array.fifo is not None and self._visible[node.name].array in self._reached

    def _fifo_element(self, node: N.Node, name: str, out: list[Access],
                      kinds: tuple[str, ...]) -> None:
        """The element a FIFO pointer reaches: one transfer on its port, at an element
        the model does not follow (the pointer steps: ``*p++``), so irregular."""
        binding = self._visible[name]
        if id(node) not in self._ref_ids:
            self._ref_ids[id(node)] = self._next_ref
            self._next_ref += 1
        rank = len(self._arrays[binding.array].shape) - len(binding.prefix)
        index = binding.index((None,) * rank)
        for kind in kinds:
            out.append(Access(binding.array, index, kind, self._ref_ids[id(node)],
                              node.coord, call=self._call_id))

    def _pointer_element(self, node: N.Node, name: str, offset: N.Node | None,
                         out: list[Access], kinds: tuple[str, ...],
                         field: str | None = None) -> None:
        """The element ``name[offset]`` (``offset`` None: 0), or its member ``field``,
        that ``node`` reaches (``*(p + e)``, ``(p + e)[k]``, ``p->f``), of a
        one-dimensional array or a struct's
        array field (:class:`.calls.Binding`).  Code generation rewrites subscripts only, so
        where it would have to rewrite this one (a banked local of the top, outside a
        function pipeline) it is an error."""
        binding = self._visible[name]
        array = self._arrays[binding.array]
        what = ("'*'" if isinstance(node, N.UnaryOp) else "'(p + e)[k]'"
                if isinstance(node, N.ArrayRef) else "'->'")
        rank = len(array.shape) - len(binding.prefix)
        if rank != 1 and not binding.field:
            raise KernelError(node.coord, f"{what} on array '{name}' of {rank} "
                                          "dimensions: write its element with subscripts")
        if self._rewrites(array):
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


def _first(parts):
    return parts[0] if parts else None


def _is_member(node: N.Node) -> bool:
    """``s.f`` or ``p->f`` with its object written (not a member of implicit this)."""
    return isinstance(node, N.Other) and node.what == MEMBER and bool(node.parts)


def _object_subscripts(node: N.Node) -> list[N.Node]:
    """The subscripts written on a method call's object (``i`` of ``W[i].f()``, of
    ``W[i].inner.f()``; ``i`` and ``k`` of ``o[i].in[k].f()``)."""
    found: list[N.Node] = []
    while True:
        node = N.without_casts(node)
        if isinstance(node, N.Other) and node.what == MEMBER and node.parts:
            node = _first(node.parts)
        elif isinstance(node, N.ArrayRef) or (isinstance(node, N.UnaryOp)
                                               and node.op in ("&", "*")):
            node, subscripts = calls.reference_chain(node)
            found[:0] = subscripts
        else:
            return found


def _object_root(node: N.Node) -> N.Node:
    """The node under the subscripts, members, ``*`` and ``&`` of an object
    (``q`` of ``q[i].in[k]``, ``p`` of ``*p``)."""
    while True:
        node = N.without_casts(node)
        if isinstance(node, N.ArrayRef):
            node = node.name
        elif isinstance(node, N.Other) and node.what == MEMBER and node.parts:
            node = _first(node.parts)
        elif isinstance(node, N.UnaryOp) and node.op in ("*", "&"):
            node = node.expr
        else:
            return node


def _own_member(node: N.Other) -> bool:
    """``node`` (a member access) names a member of ``this``: ``buf``, ``this->buf``,
    ``inner.buf`` in a method's body."""
    while isinstance(node, N.Other) and node.what == MEMBER and node.parts:
        node = _first(node.parts)
    return isinstance(node, N.Other) and (node.what == N.THIS or (
        node.what == MEMBER and not node.parts))


def _outer_member(node: N.Node) -> str | None:
    """The member of the object that ``node`` is part of (``inner`` of
    ``this->inner.buf``), as :attr:`arraypart.ir.Access.field` names it; None for
    the whole object (a reference's name)."""
    if not isinstance(node, N.Other):
        return None
    while isinstance(_first(node.parts), N.Other) and _first(node.parts).what == MEMBER:
        node = _first(node.parts)
    return node.name or None


def _element_member(node: N.Node) -> bool:
    """``A[i].x``, or ``A[i].x.y``: a member (of a member) of an array element."""
    while isinstance(node, N.Other) and node.what == MEMBER:
        if isinstance(_first(node.parts), N.ArrayRef):
            return True
        node = _first(node.parts)
    return False


def _element_call(node: N.Node, names: frozenset[str]) -> tuple[N.Node, ...] | None:
    """The arguments of a call of one of ``names`` on an array element, which is the
    first one (its object): ``A[i].range(h, l)``, ``A[i].x.set_bit(k, v)``, and the
    overloaded ``A[i][k]`` and ``A[i](h, l)``; None for any other node."""
    if isinstance(node, N.FuncCall) and node.method:
        name, args = node.name, node.args
    elif isinstance(node, N.Other) and node.what.startswith("call of "):
        name, args = node.what[len("call of "):], node.parts
    else:
        return None
    if name in names and args and (isinstance(args[0], N.ArrayRef)
                                   or _element_member(args[0])):
        return tuple(args)
    return None


def _refuse_chosen_target(node: N.Node, how: str) -> None:
    """A conditional or comma expression over array elements written through
    (``(c ? t[i] : t[j]) = v``, ``bump(c ? t[i] : t[j])``) is a located error: its
    store would go uncounted, and the emission, which routes each reference, cannot
    route a choice of them.  One over scalars is left to the scalar rules."""
    if isinstance(node, N.TernaryOp):
        chosen = (node.iftrue, node.iffalse)
    elif isinstance(node, N.BinaryOp) and node.op == ",":
        chosen = (node.right,)
    else:
        return
    if any(isinstance(n, N.ArrayRef) or (isinstance(n, N.UnaryOp) and n.op == "*")
           for part in chosen for n in N.walk(part)):
        raise KernelError(node.coord, f"a conditional (?:) or comma expression over array "
                                      f"elements is {how}: write it in an if (if (c) "
                                      "A[i] = v; else A[j] = v;)")


def _where_written(node: N.ArrayRef) -> str:
    """Where a reference with no text of its own in the kernel file is written."""
    if node.start < 0:
        return f"{node.coord.file}, which the kernel file includes"
    return "a macro's body, used in another macro's argument"


def updated_element(node: N.Node) -> N.ArrayRef | None:
    """The array reference whose element ``node`` changes in part, keeping its other
    bits: ``A[i][k] = v``, ``A[i].range(h, l) |= v``, ``A[i].x.set_bit(k, v)``; None
    when ``node`` is no such update."""
    if isinstance(node, N.Assignment):
        args = _element_call(node.lvalue, PART_SELECTS)
    else:
        args = _element_call(node, BIT_UPDATES)
    if args is None:
        return None
    element = args[0]
    while not isinstance(element, N.ArrayRef):
        element = _first(element.parts)
    return element


def _through_narrow(subscript: N.Node, types: Mapping[str, N.IntType]) -> bool:
    """Whether ``subscript`` converts to, or reads a scalar of, an integer type
    narrower than 32 bits (:attr:`ir.Access.narrowed`)."""
    stack = [subscript]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if isinstance(node, N.Cast) and node.to is not None and node.to.width < 32:
            return True
        if isinstance(node, N.Id) and (t := types.get(node.name)) is not None \
                and t.width < 32:
            return True
        stack.extend(node.children())
    return False


def _in_part(found: list[Access], array: str) -> list[Access]:
    """``found`` with each access of ``array`` marked as reaching part of its element
    (``ir.Access.partial``): a cast to a narrower type reaches it."""
    return [replace(a, partial=True) if a.array == array else a for a in found]
