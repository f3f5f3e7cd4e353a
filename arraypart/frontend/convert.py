"""clang's cursors of one translation unit -> the syntax tree of :mod:`.cnodes`: the
:class:`Converter` (functions, declarations, statements, expressions, brace lists of
number literals).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Callable

import clang.cindex as ci

from ..errors import Coord, KernelError
from . import clanglib, clangtu, literal_lists, pragmatext, templates
from .clangtu import Unit
from .clangtypes import TypeInfo, ap_type, bytes_of, int_type, wide_unsigned
from .cnodes import (ARRAY_TYPE_KINDS, DEFAULT_ARGUMENT, INTEGER_TYPE_KINDS, THIS, ArrayRef,
                     Assignment, BinaryOp, Case, Cast, Compound, Constant, Decl, DeclList,
                     Empty, For, FuncCall, FuncDef, Id, If, InitList, IntType, Label, Node,
                     Other, Pragma, Return, Switch, TernaryOp, UnaryOp, Unsupported,
                     outer_array_refs, walk)
from .cursors import (TRANSPARENT, by_reference, callee_name, captures_by_reference,
                      constant_value, conversion_operand, definition_site, for_header,
                      free_function_name,
                      implicit_object, is_conversion, is_operator_call, kind_words,
                      macro_ranges, member_function_name, names_an_array_inside, narrowing,
                      operation_wide, plain, static_method_name, writes_nothing,
                      writes_right, written_body)
from .pragmatext import PragmaLine

K = ci.CursorKind
# Nesting the lowering recursion stays far from Python's frame limit with (C99
# 5.2.4.1: 127 nested blocks, 63 nested parentheses fit below it).
MAX_TREE_DEPTH = 150
# The levels an element of a brace list adds below it: its conversion, a minus, the literal.
ELEMENT_DEPTH = 3
LITERAL_TYPES = 64  # (literal type, element type) pairs kept: a few dozen exist
COMPOUND_OPERATORS = tuple(f"operator{op}=" for op in ("+", "-", "*", "/", "%", "&", "|",
                                                       "^", "<<", ">>"))
CASTS = (K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
         K.CXX_CONST_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR)
# Operators that ap_int overloads, read as the built-in ones on its values.
OVERLOADED_BINARY = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">",
                     ">=", "==", "!=", "&&", "||")
OVERLOADED_UNARY = ("+", "-", "~", "!")
# Floating types whose values the front end leaves unknown, as their literals'.
PLAIN_FLOATING_KINDS = frozenset((ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE,
                                  ci.TypeKind.LONGDOUBLE))
UNSUPPORTED_STATEMENTS = {
    K.GOTO_STMT: "goto",
    K.BREAK_STMT: "break", K.CONTINUE_STMT: "continue", K.CXX_FOR_RANGE_STMT: "range-for",
    K.CXX_TRY_STMT: "try", K.INDIRECT_GOTO_STMT: "goto",
}
IGNORED_DECLARATIONS = (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL,
                        K.TYPE_ALIAS_DECL, K.USING_DIRECTIVE, K.USING_DECLARATION,
                        K.STATIC_ASSERT, K.CLASS_DECL, K.NAMESPACE_ALIAS)
WRAPPING_OPERATORS = ("+", "-", "*", "<<")
# Overloaded operators whose ap_[u]int result is reduced to the type it returns.
AP_ARITHMETIC = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~")


class Converter:
    """clang cursors of one translation unit -> nodes."""

    def __init__(self, unit: Unit, pragmas: list[PragmaLine],
                 own_header: Callable[[ci.SourceLocation], bool] = lambda location: False):
        self.unit = unit
        self._pragmas = pragmas
        self._written = tuple(pragmas)
        self._own_header = own_header
        self._instances: dict[str, ci.Cursor] = {}  # instantiations called, by key
        # a header's functions and methods called, by definition_site: (key, definition)
        self._header_functions: dict[tuple[str, int], tuple[str, ci.Cursor]] = {}
        self._header_pragmas: dict[str, list[tuple[int, PragmaLine]]] = {}  # by file
        #: the :func:`definition_site` of each definition of an own header analysed
        self.header_definitions: set[tuple[str, int]] = set()
        self._macro_ranges = macro_ranges(unit)
        self._depth = 0

    # ------------------------------------------------------------ helpers

    def _span(self, cursor: ci.Cursor) -> tuple[Coord, int, int]:
        extent = cursor.extent
        first = extent.start
        if self.unit.in_main(first):
            start = clanglib.offset_of(first)
            last = extent.end
            end = clanglib.offset_of(last) if self.unit.in_main(last) else start
            return self.unit.coord(start), start, end
        return self.unit.location_coord(cursor.location), -1, -1

    def _in_macro(self, start: int) -> bool:
        return any(lo <= start < hi for lo, hi in self._macro_ranges)

    def _enter(self, cursor: ci.Cursor) -> None:
        self._depth += 1
        if self._depth > MAX_TREE_DEPTH:
            raise KernelError(self._span(cursor)[0],
                              f"nested more than {MAX_TREE_DEPTH} levels deep (a chain of "
                              "binary operators counts one level per operator): split it "
                              "with temporaries")

    # ------------------------------------------------------------ functions

    def _parameters(self, cursor: ci.Cursor) -> tuple[Decl, ...]:
        """A definition's parameters; one without a default takes the default its first
        declaration gives (C++ writes a default once, often in the prototype)."""
        params = [self.decl(p, param=True) for p in cursor.get_arguments()]
        first = cursor.canonical
        if first != cursor:
            for k, p in enumerate(first.get_arguments()):
                if k < len(params) and params[k].init is None:
                    params[k] = replace(params[k], init=self.decl(p, param=True).init)
        return tuple(params)

    def function(self, cursor: ci.Cursor, namespaces: tuple[str, ...] = (),
                 extern_c: bool = False) -> FuncDef:
        coord, start, end = self._span(cursor)
        params = self._parameters(cursor)
        body_cursor = next((c for c in cursor.get_children()
                            if c.kind == K.COMPOUND_STMT), None)
        body = self.statement(body_cursor) if body_cursor is not None else None
        if not isinstance(body, Compound):
            body = Compound(coord, start, end, ())
        return FuncDef(self.unit.location_coord(cursor.location), start, end, cursor.spelling,
                       params, body, cursor.result_type.spelling, None, namespaces,
                       extern_c, nodes=tuple(walk(body)),
                       array_refs=tuple(outer_array_refs(body)),
                       method=cursor.kind == K.CXX_METHOD and not cursor.is_static_method(),
                       qualified=free_function_name(cursor))

    def instances(self) -> list[FuncDef]:
        """The instantiations of the function and class templates of the file and
        of its own headers that the converted functions call, the functions and
        methods of its own headers they call (a method named ``Class::name``, as the
        file's own), and those that these call in turn, each converted once with the
        pragmas its (template's) text holds."""
        done: list[FuncDef] = []
        sites: set[tuple[str, int]] = set()
        converted: set[str] = set()
        while (len(sites) < len(self._header_functions)
               or len(converted) < len(self._instances)):
            site = next((k for k in self._header_functions if k not in sites), None)
            if site is not None:
                sites.add(site)
                key, definition = self._header_functions[site]
                done.append(replace(self.function(definition), name=key))
                continue
            key = next(k for k in self._instances if k not in converted)
            converted.add(key)
            function = self._instances[key]
            template = templates.instantiated_template(function)
            _, start, end = self._span(template)
            self._pragmas.extend(p for p in self._written if start <= p.start < end
                                 and p not in self._pragmas)
            done.append(replace(self.function(function), instance=key,
                                template_constants=templates.bound_constants(function)))
        return done

    def decl(self, cursor: ci.Cursor, *, param: bool = False, stmt: ci.Cursor | None = None,
             shared: bool = False) -> Decl:
        coord = self.unit.location_coord(cursor.location)
        _, start, end = self._span(cursor)
        init_at = self._init_offset(cursor)
        dims: list[Node | None] = []
        init = None
        scalar = cursor.type.kind not in ARRAY_TYPE_KINDS
        for child in cursor.get_children():
            if writes_nothing(cursor, child, init_at):
                continue
            if child.kind.is_expression() or child.kind == K.INIT_LIST_EXPR:
                node = self.expression(child)
                # in a header the node has no offset in the kernel text: clang's
                at = node.start if node.start >= 0 else child.extent.start.offset
                # a class's constructor call (``bit16 i = 0``) spans the name too; a
                # scalar has no dimensions (and a macro's tokens place no ``=``)
                if scalar or (init_at is not None and at >= init_at):
                    init = node
                elif init_at is None and not param and child.kind == K.INIT_LIST_EXPR:
                    init = node
                else:
                    dims.append(node)
        dims.sort(key=lambda n: n.start)
        if scalar and init is not None and clangtu.says_before_name(cursor, "constexpr"):
            # compile-time: its value, not its initializer's calls, is what runs
            value = clangtu.integer_value(cursor)
            if value is not None:
                init = Constant(init.coord, init.start, init.end, value)
        stmt_span = self._span(stmt) if stmt is not None else (coord, start, end)
        if stmt is not None and stmt.kind == K.DECL_STMT and stmt_span[1] < 0:
            stmt_span = self._inclusion_line(stmt) or stmt_span
        return Decl(coord, start, end, cursor.spelling, TypeInfo(cursor.type), init,
                    tuple(dims),
                    cursor.storage_class == ci.StorageClass.STATIC, stmt_span[1],
                    stmt_span[2], shared, cursor.type.spelling,
                    cursor.location.offset if self.unit.in_main(cursor.location) else -1)

    def _inclusion_line(self, cursor: ci.Cursor) -> tuple[Coord, int, int] | None:
        """The ``#include`` line of the kernel text that brings in the header holding
        ``cursor`` (a declaration a function body includes): where its declarations
        stand in the kernel's text."""
        at = clangtu.included_offset(self.unit, cursor.location)
        if at is None:
            return None
        data = self.unit.data
        line = data.rfind(b"\n", 0, at) + 1
        start = line + len(data[line:at]) - len(data[line:at].lstrip())
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        return self.unit.coord(start), start, end

    def probe(self, cursor: ci.Cursor) -> tuple[str, Node | None]:
        """``(name, initializer)`` of one of the front end's macro probes."""
        kids = [c for c in cursor.get_children() if c.kind.is_expression()]
        return cursor.spelling, self.expression(kids[-1]) if kids else None

    def _init_offset(self, cursor: ci.Cursor) -> int | None:
        """Offset of the ``=`` (or C++11 ``{``) that starts the initializer, if any."""
        name_at = cursor.location.offset if self.unit.in_main(cursor.location) else None
        depth = 0
        for tok in cursor.get_tokens():
            at = tok.extent.start.offset
            if name_at is not None and at <= name_at:
                continue
            s = tok.spelling
            if s in ("[", "("):
                depth += 1
            elif s in ("]", ")"):
                depth -= 1
            elif depth == 0 and s in ("=", "{"):
                return at
        return None

    # ------------------------------------------------------------ statements

    def statement(self, cursor: ci.Cursor) -> Node:
        self._enter(cursor)
        try:
            return self._statement(cursor)
        finally:
            self._depth -= 1

    def _statement(self, cursor: ci.Cursor) -> Node:
        kind = cursor.kind
        coord, start, end = self._span(cursor)
        if kind == K.COMPOUND_STMT:
            return self._compound(cursor, coord, start, end)
        if kind == K.FOR_STMT:
            return self._for(cursor, coord, start, end)
        if kind == K.WHILE_STMT:
            return self._while(cursor, coord, start, end)
        if kind == K.DO_STMT:
            return self._do(cursor, coord, start, end)
        if kind == K.IF_STMT:
            parts = list(cursor.get_children())
            nodes = [self.expression(parts[0])] + [self.statement(p) for p in parts[1:]]
            return If(coord, start, end, nodes[0], nodes[1] if len(nodes) > 1 else None,
                      nodes[2] if len(nodes) > 2 else None)
        if kind in UNSUPPORTED_STATEMENTS:
            return Unsupported(coord, start, end, UNSUPPORTED_STATEMENTS[kind])
        if kind == K.LABEL_STMT:
            inner = next(iter(cursor.get_children()), None)
            stmt = self.statement(inner) if inner is not None else Empty(coord, start, end)
            return Label(coord, start, end, cursor.spelling, stmt)
        if kind == K.DECL_STMT:
            return self._decl_stmt(cursor, coord, start, end)
        if kind == K.RETURN_STMT:
            value = next(iter(cursor.get_children()), None)
            return Return(coord, start, end,
                          self.expression(value) if value is not None else None)
        if kind in (K.NULL_STMT,):
            return Empty(coord, start, end)
        if kind == K.SWITCH_STMT:
            return self._switch(cursor, coord, start, end)
        if kind in (K.CASE_STMT, K.DEFAULT_STMT):
            return self._case(cursor, coord, start, end)
        if kind.is_expression():
            return self.expression(cursor)
        return Unsupported(coord, start, end, kind_words(kind))

    def _compound(self, cursor, coord, start, end) -> Compound:
        if start < 0 and self._in_own_header(cursor):
            return self._header_compound(cursor, coord)
        items = [self.statement(c) for c in cursor.get_children()]
        taken = [(n.start, n.end) for n in items if n.start >= 0]
        pragmas = [Pragma(p.coord, p.start, p.end, p) for p in self._pragmas
                   if start < p.start < end
                   and not any(lo <= p.start < hi for lo, hi in taken)]
        if pragmas:
            items = sorted(items + pragmas, key=lambda n: n.start)
            for p in pragmas:
                self._pragmas.remove(p.line)
        return Compound(coord, start, end, tuple(items))

    def _in_own_header(self, cursor: ci.Cursor) -> bool:
        """``cursor`` is written in one of the kernel's own headers (not in a macro's
        expansion, whose pragmas the kernel file's scan finds)."""
        first = cursor.extent.start
        return (first.file is not None and not self.unit.in_main(first)
                and self._own_header(first) and cursor.location.file is not None
                and cursor.location.file.name == first.file.name)

    def _header_compound(self, cursor, coord) -> Compound:
        """A compound statement of a header's function: its pragmas (without text in
        the kernel file) placed among its statements by their offsets in the header."""
        file = cursor.extent.start.file
        if file.name not in self._header_pragmas:
            self._header_pragmas[file.name] = pragmatext.header_pragma_lines(self.unit, file)
        lo, hi = cursor.extent.start.offset, cursor.extent.end.offset
        children = list(cursor.get_children())
        spans = [(c.extent.start.offset, c.extent.end.offset) for c in children]
        placed = [(at, Pragma(line.coord, -1, -1, line))
                  for at, line in self._header_pragmas[file.name]
                  if lo < at < hi and not any(a <= at < b for a, b in spans)]
        items = [(a, self.statement(c)) for (a, _), c in zip(spans, children)]
        ordered = sorted(items + placed, key=lambda item: item[0])
        return Compound(coord, -1, -1, tuple(node for _, node in ordered))

    def _decl_stmt(self, cursor, coord, start, end) -> Node:
        decls = [c for c in cursor.get_children() if c.kind == K.VAR_DECL]
        if not decls:
            return Empty(coord, start, end)
        nodes = tuple(self.decl(d, stmt=cursor, shared=len(decls) > 1) for d in decls)
        return DeclList(coord, start, end, nodes)

    def _for(self, cursor, coord, start, end) -> For:
        """Which child is which follows from the header's ``;`` and ``)``: libclang
        leaves absent parts out.  A header a macro writes (``FOR_EACH(i, N) {...}``)
        shows no ``;``: there the four parts must all be present, in order."""
        opening, semis, close = for_header(cursor)
        parts: dict[str, Node | None] = {"init": None, "cond": None, "next": None}
        body = None
        children = list(cursor.get_children())
        first = next(cursor.get_tokens(), None)
        if first is not None and first.extent.start.offset != cursor.extent.start.offset:
            # the tokens are the macro's definition: the header is in its expansion
            if len(children) != 4:
                return Unsupported(coord, start, end, "for header written by a macro "
                                                      "without all of its three parts")
            init, cond, step, inner = children
            body = self._leading_pragmas(self.statement(inner), start)
            return For(coord, start, end, self.statement(init), self.expression(cond),
                       self.expression(step), body)
        for child in children:
            at = child.extent.start.offset
            if close is None or at > close:
                body = self.statement(child)
            elif at < semis[0]:
                parts["init"] = self.statement(child)
            elif len(semis) > 1 and at < semis[1]:
                parts["cond"] = self.expression(child)
            else:
                parts["next"] = self.expression(child)
        if body is None:
            body = Empty(coord, end, end)
        else:
            body = self._leading_pragmas(body, close or start)
        header = (opening + 1, close) if opening is not None and close is not None else (-1, -1)
        return For(coord, start, end, parts["init"], parts["cond"], parts["next"], body,
                   header)

    def _while(self, cursor, coord, start, end) -> Node:
        """``while (cond) stmt`` as the ``for (; cond; ) stmt`` it is; a condition
        that declares a variable stays unsupported."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[0].kind.is_expression():
            return Unsupported(coord, start, end, "while")
        cond = self.expression(parts[0])
        body = self._leading_pragmas(self.statement(parts[1]), cond.end)
        return For(coord, start, end, None, cond, None, body)

    def _do(self, cursor, coord, start, end) -> Node:
        """``do stmt while (cond);``: a loop that tests after each iteration."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[1].kind.is_expression():
            return Unsupported(coord, start, end, "do")
        body = self.statement(parts[0])
        cond = self.expression(parts[1])
        return For(coord, start, end, None, cond, None, body, post_test=True)

    def _switch(self, cursor, coord, start, end) -> Node:
        """``switch (cond) body``; one that declares a variable in its header
        (``switch (int v = f())``, ``switch (init; cond)``) stays unsupported."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[0].kind.is_expression():
            return Unsupported(coord, start, end, "switch")
        return Switch(coord, start, end, self.expression(parts[0]),
                      self.statement(parts[1]))

    def _case(self, cursor, coord, start, end) -> Node:
        """``case value: stmt`` or ``default: stmt``; GNU's ``case lo ... hi:`` stays
        unsupported."""
        parts = list(cursor.get_children())
        if cursor.kind == K.DEFAULT_STMT and len(parts) == 1:
            return Case(coord, start, end, None, self.statement(parts[0]))
        if cursor.kind == K.CASE_STMT and len(parts) == 2:
            return Case(coord, start, end, self.expression(parts[0]),
                        self.statement(parts[1]))
        return Unsupported(coord, start, end, "case range")

    def _leading_pragmas(self, body: Node, after: int) -> Node:
        """A loop body without braces, with the pragmas written between the header
        and it (after byte ``after``) as its first items."""
        if isinstance(body, Compound):
            return body
        lead = [Pragma(p.coord, p.start, p.end, p) for p in self._pragmas
                if after < p.start < body.start or p.directive and p.start == body.start]
        for p in lead:
            self._pragmas.remove(p.line)
        if not lead:
            return body
        return Compound(body.coord, lead[0].start, body.end, tuple(lead) + (body,),
                        braced=False)

    # ------------------------------------------------------------ expressions

    def _call(self, cursor, kids, coord, start, end) -> Node:
        """A call: ``f(args)``; in C++ also an overloaded operator (the object first),
        a conversion or a constructor.  libclang shows no operand of an implicit
        conversion (``operator int`` of an ap_int element), so one applied to an array
        element is refused rather than read as no access."""
        if not kids and cursor.spelling.startswith("operator") and any(
                t.spelling == "[" for t in cursor.get_tokens()):
            raise KernelError(coord, "arraypart cannot see the array element behind "
                                     f"this implicit '{cursor.spelling}' conversion: "
                                     "convert it explicitly (A[i].to_int(), "
                                     "A[i].to_uint()) or give the element a C type")
        to = int_type(cursor.type)
        if kids and is_conversion(cursor, kids) and to is not None:
            # ap_uint<16>(e), the implicit ``operator int`` of an ap_int value
            operand = conversion_operand(cursor, kids)
            return Cast(coord, start, end, to, self.expression(operand),
                        int_type(operand.type))
        if cursor.referenced is not None and cursor.referenced.kind == K.CONSTRUCTOR:
            # ``Rc w(s);``: every child is an argument (a constructor may bind one it
            # takes by reference to a reference member), none names the callee; a
            # template's ``S()`` has no child at all in the instantiation
            return Other(coord, start, end, f"call of {cursor.spelling}",
                         tuple(self.expression(k) for k in kids), "",
                         by_reference(cursor.referenced))
        if not kids:
            return FuncCall(coord, start, end, cursor.spelling or None, ())
        callee = callee_name(kids[0])
        if callee is not None and not is_operator_call(kids):
            head = plain(kids[0])
            # a.f(): a is evaluated too (the member's first child: an explicit template
            # argument, a.get<0>(), is a child after it)
            objects = [self.expression(k) for k in head.get_children()
                       if k.kind.is_expression()][:1] if (
                head.kind == K.MEMBER_REF_EXPR) else []
            if not objects and implicit_object(cursor.referenced, head):
                objects = [Other(coord, -1, -1, THIS, ())]  # f() in a method: this->f()
            instance = self._instance(cursor.referenced, coord)
            callee = self._callee_key(cursor.referenced, callee, instance)
            return FuncCall(coord, start, end, callee,
                            tuple(objects) + tuple(self.expression(k) for k in kids[1:]),
                            instance, bool(objects),
                            () if objects else by_reference(cursor.referenced),
                            bool(objects) and self._own_method(cursor.referenced))
        operand_kids = [k for k in kids if callee_name(k) is None
                        or not callee_name(k).startswith("operator")]
        operands = tuple(self.expression(k) for k in operand_kids)
        wide = wide_unsigned(k.type for k in operand_kids)
        name = cursor.spelling or None
        if (name is not None and name.startswith("operator") and operands
                and self._own_method(cursor.referenced) and written_body(cursor.referenced)):
            # an operator the kernel's own class defines (q[k](i, v), q[k] += v) is a
            # method call on its first operand, inlined as one
            instance = self._instance(cursor.referenced, coord)
            return FuncCall(coord, start, end,
                            self._callee_key(cursor.referenced, name, instance), operands,
                            instance, True, (), True)
        if name == "operator=" and len(operands) == 2:
            return Assignment(coord, start, end, "=", operands[0], operands[1])
        if name in COMPOUND_OPERATORS and len(operands) == 2:
            return Assignment(coord, start, end, name[len("operator"):], operands[0],
                              operands[1], wide=wide)
        op = name[len("operator"):] if name and name.startswith("operator") else None
        result = ap_type(cursor.type) if op in AP_ARITHMETIC else None
        if op in OVERLOADED_BINARY and len(operands) == 2:
            return BinaryOp(coord, start, end, op, operands[0], operands[1], result,
                            writes_right(cursor.referenced), wide)
        if op in ("++", "--") and operands:  # the postfix form has a dummy int operand
            return UnaryOp(coord, start, end, op if len(operands) == 1 else "p" + op,
                           operands[0])
        if op in OVERLOADED_UNARY and len(operands) == 1:
            return UnaryOp(coord, start, end, op, operands[0], result)
        return Other(coord, start, end, f"call of {name}", operands)

    def _readable(self, location: ci.SourceLocation) -> bool:
        """``location`` lies in the kernel file or in a header of its own, whose
        definitions are analysed like the file's (DESIGN §1: every function reachable
        from the top), though only the kernel file is ever edited."""
        return self.unit.in_main(location) or self._own_header(location)

    def _own_method(self, method: ci.Cursor | None) -> bool:
        """``method`` is a non-static method of a class that the kernel file or one of
        its own headers declares (:attr:`FuncCall.own_method`)."""
        return (method is not None and method.kind == K.CXX_METHOD
                and not method.is_static_method() and method.semantic_parent is not None
                and self._readable(method.semantic_parent.location))

    def _callee_key(self, function: ci.Cursor | None, name: str,
                    instance: str | None) -> str:
        """What a call of ``function``, spelt ``name``, names among the definitions
        (:attr:`FuncCall.key` when ``instance`` is None): ``Class::name`` for a static
        method, and for a non-static one that the kernel file declares or that the
        file or one of its own headers defines (in the class or out of it); ``A::f``
        for a free function of the namespace ``A`` defined there; else ``name``.  A definition in one of those headers, a function's or a method's,
        is noted for :meth:`instances` under that key (two overloads called are two
        definitions of one key: :func:`.calls.definitions` refuses it, as the file's)."""
        if function is None:
            return name
        definition = function.get_definition()
        readable = definition is not None and self._readable(definition.location)
        key = static_method_name(function) or (
            member_function_name(function)
            if readable or self.unit.in_main(function.location) else None) or (
            free_function_name(function) if readable else None) or name
        if (instance is None and readable and not self.unit.in_main(definition.location)
                and function.kind in (K.FUNCTION_DECL, K.CXX_METHOD)):
            self._header_functions.setdefault(definition_site(definition), (key, definition))
            self.header_definitions.add(definition_site(definition))
        return key

    def _instance(self, function: ci.Cursor | None, coord: Coord) -> str | None:
        """The key of the instantiation ``function`` of a template defined in the
        kernel file or in one of its own headers (noted for :meth:`instances`), or
        None."""
        template = templates.instantiated_template(function)
        if template is None or not self._readable(template.location) or not any(
                c.kind == K.COMPOUND_STMT for c in function.get_children()):
            return None
        key = templates.instance_key(function, coord)
        self._instances.setdefault(key, function)
        if not self.unit.in_main(template.location):
            # the method's own site where a class template's text holds it
            self.header_definitions.add(definition_site(function))
        return key

    def expression(self, cursor: ci.Cursor) -> Node:
        self._enter(cursor)
        try:
            return self._expression(cursor)
        finally:
            self._depth -= 1

    def _expression(self, cursor: ci.Cursor) -> Node:
        kind = cursor.kind
        while kind in TRANSPARENT:
            kids = list(cursor.get_children())
            if len(kids) != 1:
                break
            narrowed = narrowing(cursor, kids[0])
            if narrowed is not None:
                coord, start, end = self._span(cursor)
                return Cast(coord, start, end, narrowed, self.expression(kids[0]),
                            int_type(kids[0].type), implicit=True)
            cursor, kind = kids[0], kids[0].kind
        if kind == K.INIT_LIST_EXPR:
            listed = self._literal_list(cursor)
            if listed is not None:
                return listed
        coord, start, end = self._span(cursor)
        kids = list(cursor.get_children())
        if kind == K.UNEXPOSED_EXPR and not kids and next(cursor.get_tokens(), None) is None:
            return Other(coord, start, end, DEFAULT_ARGUMENT)
        if kind == K.DECL_REF_EXPR and not cursor.spelling and len(kids) == 1:
            return self.expression(kids[0])  # a template parameter, bound to its argument
        if kind == K.DECL_REF_EXPR:
            value = constant_value(cursor.referenced)
            if value is not None:  # an enumerator, a constexpr or static const member
                return Constant(coord, start, end, value)
            return Id(coord, start, end, cursor.spelling)
        if kind in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.SIZE_OF_PACK_EXPR):
            return Constant(coord, start, end, clangtu.integer_value(cursor))
        if kind == K.CXX_BOOL_LITERAL_EXPR:
            return Constant(coord, start, end, clangtu.integer_value(cursor))
        if kind in (K.FLOATING_LITERAL, K.STRING_LITERAL):
            return Constant(coord, start, end, None)
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            op = clangtu.binary_operator(cursor)
            left, right = self.expression(kids[0]), self.expression(kids[1])
            if op == "=":
                pointer = cursor.type.get_canonical().kind == ci.TypeKind.POINTER
                return Assignment(coord, start, end, op, left, right, pointer)
            result = int_type(cursor.type) if op in WRAPPING_OPERATORS else None
            return BinaryOp(coord, start, end, op, left, right,
                            result if result is not None and not result.signed else None,
                            wide=operation_wide(op, kids))
        if kind == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            op = clangtu.binary_operator(cursor)
            return Assignment(coord, start, end, op, self.expression(kids[0]),
                              self.expression(kids[1]), wide=operation_wide(op[:-1], kids))
        if kind == K.UNARY_OPERATOR and len(kids) == 1:
            op = clangtu.unary_operator(cursor)
            if op is not None:
                result = int_type(cursor.type) if op in ("-", "~") else None
                return UnaryOp(coord, start, end, op, self.expression(kids[0]),
                               result if result is not None and not result.signed else None,
                               size=bytes_of(cursor.type) if op == "*" else None)
        if kind == K.CXX_UNARY_EXPR:
            operand = next((k for k in kids if k.kind.is_expression()), None)
            return UnaryOp(coord, start, end, "sizeof",
                           self.expression(operand) if operand is not None else None,
                           size=clangtu.integer_value(cursor))
        if kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            a, b, c = (self.expression(k) for k in kids)
            return TernaryOp(coord, start, end, a, b, c)
        if kind in CASTS and kids:
            pointer = cursor.type.get_canonical()
            return Cast(coord, start, end, int_type(cursor.type), self.expression(kids[-1]),
                        int_type(kids[-1].type), points_to=bytes_of(pointer.get_pointee())
                        if pointer.kind == ci.TypeKind.POINTER else None)
        if kind == K.CALL_EXPR:
            return self._call(cursor, kids, coord, start, end)
        if kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
            base, index = self.expression(kids[0]), self.expression(kids[1])
            in_macro = start < 0 or self._in_macro(start)
            written = self.unit.argument_span(cursor.extent) if in_macro else None
            if written is not None:  # in a macro's argument: rewritten where written
                start, end, in_macro = written[0], written[1], False
                coord = self.unit.coord(start)
            return ArrayRef(coord, start, end, base, index, in_macro)
        if kind == K.INIT_LIST_EXPR:
            return InitList(coord, start, end, tuple(self.expression(k) for k in kids))
        if kind == K.LAMBDA_EXPR and captures_by_reference(cursor):
            raise KernelError(coord, "a lambda that captures by reference may change the "
                                     "kernel's variables where arraypart cannot follow: "
                                     "capture by value, or write a function that takes "
                                     "them by reference")
        if kind == K.LAMBDA_EXPR and names_an_array_inside(cursor):
            raise KernelError(coord, "a lambda that uses an array hides its accesses from "
                                     "arraypart: write a function that takes the array")
        if kind == K.MEMBER_REF_EXPR:  # (&w)->f is w.f, (*p).f is p->f
            kids = [clangtu.member_object(k) if n == 0 else k for n, k in enumerate(kids)]
        parts = tuple(self.expression(k) for k in kids if k.kind.is_expression()
                      or k.kind == K.INIT_LIST_EXPR)
        return Other(coord, start, end, kind_words(kind), parts,
                     cursor.spelling if kind == K.MEMBER_REF_EXPR else "")

    def _literal_list(self, cursor: ci.Cursor) -> InitList | None:
        """The brace list ``cursor`` of an array of numbers, read from its text where
        that holds number literals alone (:mod:`.literal_lists`): the nodes the cursor
        walk makes, without a cursor per element; else None."""
        t = cursor.type.get_canonical()
        rank = 0
        while t.kind == ci.TypeKind.CONSTANTARRAY:
            t, rank = t.element_type.get_canonical(), rank + 1
        numbers = t.kind in INTEGER_TYPE_KINDS or t.kind in PLAIN_FLOATING_KINDS
        if rank == 0 or not numbers or self._depth + rank + ELEMENT_DEPTH > MAX_TREE_DEPTH:
            return None  # (deeper: the cursor walk says where it is too deep)
        with literal_lists.uncollected():
            listed = literal_lists.read(self.unit, cursor, rank)
            # clang converts a C++ list's elements in its semantic form alone, which
            # libclang does not show: the cursor walk meets no conversion there
            to = None if self.unit.is_cxx else int_type(t)
            if listed is None:
                return None
            return _header_nodes(listed, to) if listed.span[1] < 0 else _listed(listed, to)


@functools.lru_cache(maxsize=literal_lists.HEADER_LISTS)
def _header_nodes(listed: literal_lists.Braced, to: IntType | None) -> InitList:
    """:func:`_listed` of a header's list, kept: :func:`.literal_lists.read` gives the
    same list again in the next reading, which is converted once (the nodes are
    frozen and hold no offset of the kernel text)."""
    return _listed(listed, to)


def _listed(item: literal_lists.Braced | literal_lists.Number, to: IntType | None) -> Node:
    """The nodes of a list :func:`.literal_lists.read` read, its elements converted to
    the array's element type ``to`` (None: floating, or no conversion shown) as
    :meth:`Converter._expression` converts them: ``Cast`` where ``to`` does not hold
    every value of the literal's type, ``UnaryOp`` for a minus, which computes in the
    literal's type."""
    if isinstance(item, literal_lists.Braced):
        return InitList(*item.span, tuple(_listed(k, to) for k in item.items))
    source, narrowed = _literal_type(item.bits, item.signed, to)
    node: Node = Constant(*item.literal, item.value)
    if item.negated:
        node = UnaryOp(*item.span, "-", node,
                       source if source is not None and not source.signed else None)
    return node if narrowed is None else Cast(*item.span, narrowed, node, source,
                                              implicit=True)


@functools.lru_cache(maxsize=LITERAL_TYPES)
def _literal_type(bits: int | None, signed: bool,
                  to: IntType | None) -> tuple[IntType | None, IntType | None]:
    """(a literal's type, ``to`` where converting the literal to it narrows, else None)."""
    source = IntType(bits, signed) if bits is not None else None
    narrows = to is not None and source is not None and not to.holds(source)
    return source, to if narrows else None
