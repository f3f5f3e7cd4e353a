"""Which cursors of the kernel text the instrumentation (:mod:`.instrument`) records as
element accesses, how each is used (read, write, update; only on some values), and the
insertions that wrap one in a recording call; the walk of the unit that meets them.
"""

from __future__ import annotations

from typing import Iterator

import clang.cindex as ci

from ..frontend import clangtu
from ..frontend import cnodes as N
from ..frontend.accesses import STREAM_READS
from ..frontend.clangtypes import mutable_reference
from ..frontend.cursors import definition_site, written_body
from ..sourcetext import KEEP_BYTES
from .inserts import NAMESPACE, Insert

K = ci.CursorKind
STREAM_TYPE = "hls::stream<"  # clang's canonical spelling of a stream, whatever was written
ARRAY_TYPES = frozenset((ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                         ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY))
_WRAPPERS = frozenset((K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.MEMBER_REF_EXPR))


def unit_cursors(unit: clangtu.Unit) -> Iterator[tuple[ci.Cursor, tuple]]:
    """:func:`walk` of the whole unit, without descending into the top-level cursors
    whose trees hold none of the kernel file's code (``Unit.own_trees``: the headers'
    own declarations, thousands for ap_int.h)."""
    own = {c.hash for c in unit.own_trees}
    for top in unit.top:
        yield top, ()
        if top.hash in own and not _compile_time(top):
            yield from walk(top, (top,))


def walk(cursor: ci.Cursor, parents: tuple) -> Iterator[tuple[ci.Cursor, tuple]]:
    """Every cursor below ``cursor`` with its ancestors, except inside ``constexpr``
    functions: the compiler may run those while compiling, where no recording call
    (nor a Scope with a destructor) is allowed."""
    for child in cursor.get_children():
        yield child, parents
        if not _compile_time(child):
            yield from walk(child, parents + (child,))


FUNCTIONS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR)


def _compile_time(cursor: ci.Cursor) -> bool:
    """A ``constexpr`` (or ``consteval``) function: its head, before the body or the
    ``;``, says so."""
    if cursor.kind not in FUNCTIONS:
        return False
    for token in cursor.get_tokens():
        if token.spelling in ("{", ";"):
            return False
        if token.spelling in ("constexpr", "consteval"):
            return True
    return False


def is_element(cursor: ci.Cursor, parents: tuple,
               read: frozenset[tuple[str, int]]) -> bool:
    """An access to one element, a subscript or a dereference ``*(p + e)`` (the
    runtime finds the array that ``p + e`` points into, if any): not an array (a row),
    not the base of another subscript, not an operand of ``&``, not in a struct's array
    field (``s.f[k]``, ``A[i].f[k]``: part of the struct's value, whose own access
    ``A[i]`` is the one recorded), not the object of a method the front end inlines
    (:func:`_inlined_method`; ``read``: the headers' definitions it reads), not an
    ``hls::stream`` of an array of them (a FIFO, whose transfers the trace does not
    record: ``s[j].write(v)``)."""
    dereference = (cursor.kind == K.UNARY_OPERATOR
                   and clangtu.unary_operator(cursor) == "*")
    if cursor.kind == K.MEMBER_REF_EXPR:
        return _own_field(cursor, parents)
    if cursor.kind == K.DECL_REF_EXPR:
        return _element_reference(cursor.referenced) and not (
            parents and parents[-1].kind == K.MEMBER_REF_EXPR)
    if not (cursor.kind == K.ARRAY_SUBSCRIPT_EXPR or dereference):
        return False
    if _user(cursor, parents) is not None and _element_reference(_user(cursor, parents)):
        return False  # P &r = A[i]: each use of r is the access (the front end's model)
    plain = _object_of(cursor, parents)[1] if dereference else None
    if plain is not None and plain != cursor:
        return False  # (*&w).f, (*p).f: w's fields, p's element (:func:`is_arrow_object`)
    if any(t.get_canonical().spelling.startswith(STREAM_TYPE)
           for t in (cursor.type, _root(cursor).type)):  # the root's in a template too
        return False
    if cursor.type.get_canonical().kind in ARRAY_TYPES or (
            _root(cursor).kind == K.MEMBER_REF_EXPR and not _of_this(_root(cursor))
            and not _of_struct_variable(_root(cursor))):
        return False
    user = _user(cursor, parents)
    if user is not None and _inlined_method(user, read) and _first_operand_path(
            cursor, user, parents):
        return False  # W[i].f(): the method's member accesses are the element's
    return not (user is not None and user.kind == K.UNARY_OPERATOR
                and clangtu.unary_operator(user) == "&")


def is_arrow_object(cursor: ci.Cursor, parents: tuple) -> bool:
    """A pointer or array ``p`` (a name, or a field ``h->q`` not of ``this``) that a
    field access ``p->f`` goes through: the access of the element ``*p`` (as ``(*p).f``
    and ``p[0].f`` are), unless the field is an array that decays there
    (``g(p->buf)``: the callee's subscripts are the accesses) or the whole is an
    operand of ``&``."""
    if not _memory_type(cursor.type) or not (
            cursor.kind == K.DECL_REF_EXPR
            or (cursor.kind == K.MEMBER_REF_EXPR and not _of_this(cursor))):
        return False
    member, plain = _object_of(cursor, parents)
    if plain is None or plain != cursor or member.referenced is None \
            or member.referenced.kind != K.FIELD_DECL:
        return False  # p->f(): an inlined method's member accesses are the element's
    if member.type.get_canonical().kind in ARRAY_TYPES:
        above = next((p for p in reversed(parents[:parents.index(member)])
                      if p.kind not in (K.UNEXPOSED_EXPR, K.PAREN_EXPR)), None)
        if not (above is not None and above.kind == K.ARRAY_SUBSCRIPT_EXPR
                and _root(above) == member):
            return False
    user = _user(cursor, parents)
    return not (user is not None and user.kind == K.UNARY_OPERATOR
                and clangtu.unary_operator(user) == "&")


def _object_of(cursor: ci.Cursor, parents: tuple) -> tuple:
    """``(member access, its object)`` when ``cursor`` spells that object
    (:func:`arraypart.frontend.clangtu.member_object`: ``p`` of ``p->f`` and ``(*p).f``)
    or is on the way to it (``*&w`` of ``(*&w).f``); ``(None, None)`` otherwise."""
    for parent in reversed(parents):
        if parent.kind == K.MEMBER_REF_EXPR:
            kids = [k for k in parent.get_children() if k.kind.is_expression()]
            plain = clangtu.member_object(kids[0]) if kids else None
            return ((parent, plain) if plain is not None and (
                plain == cursor or _below(cursor, kids[0], plain)) else (None, None))
        if parent.kind == K.ARRAY_SUBSCRIPT_EXPR or not parent.kind.is_expression():
            return None, None
    return None, None


def _below(cursor: ci.Cursor, top: ci.Cursor, plain: ci.Cursor) -> bool:
    """``cursor`` is on the way from ``top`` down to ``plain`` (what
    :func:`arraypart.frontend.clangtu.member_object` goes through)."""
    node = top
    while node != plain:
        if node == cursor:
            return True
        kids = [k for k in node.get_children() if k.kind.is_expression()]
        if len(kids) != 1:
            return False
        node = kids[0]
    return False


def name_span(unit: clangtu.Unit, cursor: ci.Cursor, data: bytes) -> tuple[int, int] | None:
    """The bytes of a name (``p``) or a field access (``h->q``) as the kernel text
    spells it (in a macro's argument or out of macros, ending with the name); None
    when a macro's body produces it."""
    written = unit.argument_span(cursor.extent)
    if written is not None:
        return written
    start, end = cursor.extent.start.offset, cursor.extent.end.offset
    name = cursor.spelling.encode(errors=KEEP_BYTES)
    spelled = data[start:end]
    return (start, end) if name and (spelled == name or (
        cursor.kind == K.MEMBER_REF_EXPR and spelled.endswith(name))) else None


def arrow_edits(cursor: ci.Cursor, span: tuple[int, int], site: int, kind: int,
                copy: str, data: bytes) -> list[Insert]:
    """``p->f`` becomes ``(&at(SITE, KIND, COPY, p, *p))->f``: the element ``*p`` is
    logged and its address goes on to the member access (``h->q->f``: ``*h->q``, its
    array found by address alone)."""
    start, end = span
    base = (data[start:end].decode(errors=KEEP_BYTES) if cursor.kind == K.DECL_REF_EXPR
            else "nullptr")
    opener = f" (&{NAMESPACE}at_exact({site}, {kind}, {copy}, {base}, *"
    return [Insert(start, True, -end, opener), Insert(end, False, -start, "))")]


def _inlined_method(call: ci.Cursor, read: frozenset[tuple[str, int]]) -> bool:
    """``call`` calls a non-static method that the kernel file, or one of its own
    headers at a site in ``read`` (:attr:`arraypart.ir.SourceUnit.header_definitions`),
    defines with a body, which the front end inlines on its object
    (:func:`arraypart.frontend.calls.implicit_object`): an operator too (``q[k](i, v)``,
    ``q[k] += v``), not one the compiler declares (a struct's own ``=``).  A header's
    accesses are not recorded (:func:`.instrument.instrument` edits the kernel file only), so
    neither is its object there."""
    method = _called_method(call) if call.kind == K.CALL_EXPR else None
    if method is None or method.kind != K.CXX_METHOD or method.is_static_method():
        return False
    definition = method.get_definition()
    return (definition is not None and definition.location.file is not None
            and (definition.location.file.name == call.translation_unit.spelling
                 or definition_site(definition) in read)
            and written_body(method))


def _called_method(call: ci.Cursor) -> ci.Cursor | None:
    """The function ``call`` calls: the one clang names, or in a template's text, which
    leaves a call on an object of a dependent type unnamed (``cells[k].sum()`` in a
    method of ``template <int N> struct Bank { Cell cells[N]; ... }``), the one method
    of that name of the object's class where that class is known there: the element
    type of an array or of a pointer, as every instantiation has it."""
    if call.referenced is not None:
        return call.referenced
    head = next(call.get_children(), None)
    if head is None or head.kind != K.MEMBER_REF_EXPR:
        return None
    obj = next((k for k in head.get_children() if k.kind.is_expression()), None)
    while obj is not None and obj.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        obj = next(obj.get_children(), None)
    if obj is None or obj.kind != K.ARRAY_SUBSCRIPT_EXPR:
        return None
    base = next(obj.get_children()).type.get_canonical()  # an array, or one decayed
    element = (base.element_type if base.kind in ARRAY_TYPES else base.get_pointee()
               if base.kind == ci.TypeKind.POINTER else None)
    element = None if element is None else element.get_canonical()
    if element is None or element.kind != ci.TypeKind.RECORD:
        return None
    name = clangtu.member_name(head)
    found = [c for c in element.get_declaration().get_children()
             if c.kind == K.CXX_METHOD and c.spelling == name]
    return found[0] if len(found) == 1 else None


def _of_this(member: ci.Cursor) -> bool:
    """``member`` (a member access, through members: ``inner.buf``) is of ``this``,
    written or implicit: in a method, its object's member, which the runtime finds by
    address (a struct element of an array: that element, as the front end models it)."""
    return _of_this_root(_member_root(member))


def _of_this_root(root: ci.Cursor) -> bool:
    """A member chain's root (:func:`_member_root`) is ``this``: implicit, or written."""
    return root.kind in (K.MEMBER_REF_EXPR, K.CXX_THIS_EXPR)


def _member_root(member: ci.Cursor) -> ci.Cursor:
    """The object at the root of ``member``'s chain of member accesses, through
    parentheses and implicit casts: a name, ``this``, a call...; a member access with
    no object (of the implicit ``this``) is its own root."""
    node = member
    while node.kind in _WRAPPERS:
        kids = [k for k in node.get_children() if k.kind.is_expression()]
        if not kids:
            return node
        node = clangtu.member_object(kids[0])
    return node


def _by_address(member: ci.Cursor) -> bool:
    """``member`` (through members) is of ``this`` (:func:`_of_this`) or of a reference
    bound to an array element (``next.x`` of ``const P &next = s[i + 1]``): a part of
    an element, which the runtime finds by address."""
    root = _member_root(member)
    return _of_this_root(root) or (root.kind == K.DECL_REF_EXPR
                                   and _element_reference(root.referenced))


def _element_reference(variable: ci.Cursor | None) -> bool:
    """``variable`` is a reference bound to an array element (``P &r = A[i];``), which
    the front end follows to the element at each use of its name."""
    if variable is None or variable.kind != K.VAR_DECL or (
            variable.type.kind not in N.REFERENCE_TYPE_KINDS):
        return False
    init = next((k for k in variable.get_children() if k.kind.is_expression()), None)
    while init is not None and init.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        init = next((k for k in init.get_children() if k.kind.is_expression()), None)
    return (init is not None and init.kind == K.ARRAY_SUBSCRIPT_EXPR
            and init.type.get_canonical().kind not in ARRAY_TYPES)


def _of_struct_variable(member: ci.Cursor) -> bool:
    """``member`` is a field of a struct a name reaches through fields alone
    (``w.buf``, ``w.in.buf``, ``s.buf`` of a reference ``s``, ``p->buf``): of a
    struct variable, a memory of its own (:attr:`arraypart.ir.Array.member`), which
    the runtime finds by address and records as an element of the field's size (of a
    struct element ``p[0]``, whose own access ``*p`` is recorded, it records nothing:
    the element is of another size; a top's struct argument, aggregated, is no
    memory it registers); not of the implicit this (:func:`_of_this`'s)."""
    return _member_root(member).kind == K.DECL_REF_EXPR


def of_struct_value(member: ci.Cursor) -> bool:
    """``member`` is a field of a struct variable that a name reaches through fields
    alone, not through a pointer (``w.buf``, ``w.in.buf``, ``s.buf`` of a reference
    ``s``; not ``p->buf``, which may lie in an array's struct element)."""
    root = _member_root(member)
    return (root.kind == K.DECL_REF_EXPR
            and clangtu.referred(root.type).kind == ci.TypeKind.RECORD)


def _own_field(cursor: ci.Cursor, parents: tuple) -> bool:
    """A member access that is an element access of its own: a field of ``this`` that
    is no array (``total += v``, ``inner.x`` in a method) and not the object of a
    further field access (``inner`` of ``inner.x``), whose whole value is read or
    written as the front end models ``A[i].x``."""
    if (cursor.referenced is None or cursor.referenced.kind != K.FIELD_DECL
            or cursor.type.get_canonical().kind in ARRAY_TYPES or not _by_address(cursor)):
        return False
    for parent in reversed(parents):
        if parent.kind == K.MEMBER_REF_EXPR:
            return parent.referenced is None or parent.referenced.kind != K.FIELD_DECL
        if parent.kind not in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            return True
    return True


def _user(cursor: ci.Cursor, parents: tuple) -> ci.Cursor | None:
    """The first ancestor that is not a cast, parenthesis or member access, nor a
    subscript of a member array the path reaches as its base (``A[i].v[k] = x`` writes
    A[i]); None at the top."""
    below = cursor
    for parent in reversed(parents):
        through_field = (parent.kind == K.ARRAY_SUBSCRIPT_EXPR
                         and next(iter(parent.get_children()), None) == below
                         and _root(parent).kind == K.MEMBER_REF_EXPR)
        if parent.kind not in _WRAPPERS and not through_field:
            return parent
        below = parent
    return None


def _first_operand_path(cursor: ci.Cursor, user: ci.Cursor, parents: tuple) -> bool:
    """Whether ``cursor`` (through wrappers) is the first operand of ``user``."""
    chain = list(parents) + [cursor]
    below = chain[chain.index(user) + 1] if user in chain else cursor
    first = next(iter(user.get_children()), None)
    return first is not None and first == below


# ap_int / ap_fixed part selects an assignment may write through, and members that
# change some bits in place (:data:`arraypart.frontend.accesses.PART_SELECTS`,
# ``BIT_UPDATES``).
_PART_SELECTS = frozenset({"range", "bit", "operator()", "operator[]"})
_BIT_UPDATES = frozenset({"set_bit", "set", "clear", "invert", "reverse", "lrotate",
                          "rrotate", "b_not"})
_OVERLOADED_UPDATES = frozenset(f"operator{op}=" for op in
                                ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"))


def access_kind(cursor: ci.Cursor, parents: tuple, written_through: bool = True) -> str:
    """read, write (left of ``=``) or update (left of ``op=``, under ``++``/``--``),
    for built-in operators and for the overloaded ones of class types (``ap_int``);
    an argument bound to a reference to non-const is an update where the front end
    found that the callee may write through it (``written_through``: its
    ``Access.by_reference``; a template's ``T &x`` that only reads does not)."""
    user = _user(cursor, parents)
    if user is None:
        return "read"
    if user.kind == K.CALL_EXPR and _first_operand_path(cursor, user, parents):
        called = called_name(user)
        if called in _PART_SELECTS:
            # A[i].range(h, l) = v keeps the bits outside the selection: an update
            above = tuple(parents[:list(parents).index(user)])
            return "read" if access_kind(user, above, written_through) == "read" else "update"
        if called == "operator=":
            return "write"
        if called in _BIT_UPDATES:
            return "update"
        if called in _OVERLOADED_UPDATES or called in ("operator++", "operator--"):
            return "update"
    if user.kind == K.CALL_EXPR and _stream_read(user):
        return "read" if _first_operand_path(cursor, user, parents) else "write"
    if user.kind == K.BINARY_OPERATOR and clangtu.binary_operator(user) == "=":
        return "write" if _first_operand_path(cursor, user, parents) else "read"
    if user.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
        return "update" if _first_operand_path(cursor, user, parents) else "read"
    if user.kind == K.UNARY_OPERATOR and clangtu.unary_operator(user) in ("++", "--",
                                                                          "p++", "p--"):
        return "update"
    if (written_through and user.kind == K.CALL_EXPR
            and _bound_to_reference(cursor, user, parents)):
        return "update"
    return "read"


def narrow_cast(cursor: ci.Cursor) -> bool:
    """``*(T *)&A[e]`` (``*(T *)(A + e)``, ``*reinterpret_cast<T *>(...)``), or a
    byte view ``((T *)&A[e])[k]``, with T narrower than what the cast's operand points
    to: a write of it keeps the other bytes of the element that holds it, a
    read-modify-write, an update (:func:`arraypart.frontend.routines.partial_write`)."""
    dereference = (cursor.kind == K.UNARY_OPERATOR
                   and clangtu.unary_operator(cursor) == "*")
    if not (dereference or cursor.kind == K.ARRAY_SUBSCRIPT_EXPR):
        return False
    cast = unwrapped(next(cursor.get_children()))
    if cast.kind not in (K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR):
        return False
    operand = [k for k in cast.get_children() if k.kind.is_expression()][-1]
    pointed = operand.type.get_canonical()
    pointed = (pointed.get_pointee() if pointed.kind == ci.TypeKind.POINTER
               else pointed.element_type)
    return 0 < cursor.type.get_size() < pointed.get_size()


def _stream_read(call: ci.Cursor) -> bool:
    """``call`` reads an ``hls::stream`` into its argument: ``s >> A[i]``,
    ``s.read(A[i])``, ``s.read_nb(A[i])`` store into ``A[i]`` (as the front end models
    them: :data:`arraypart.frontend.accesses.STREAM_READS`)."""
    method = call.referenced
    if method is None or method.spelling not in STREAM_READS:
        return False
    owner = method.semantic_parent
    return (owner is not None and owner.spelling == "stream"
            and owner.semantic_parent is not None and owner.semantic_parent.spelling == "hls")


def routine_name(call: ci.Cursor) -> str:
    """The name a call calls, without a ``__builtin_`` prefix."""
    return called_name(call).removeprefix("__builtin_")


def called_name(call: ci.Cursor) -> str:
    """The name a call calls; in a template, clang leaves a call on an object whose
    type is dependent unnamed, and its member expression names it
    (:func:`arraypart.frontend.clangtu.member_name`), and a call of a function whose
    arguments are dependent unresolved, its overload set naming it."""
    if call.spelling:
        return call.spelling
    callee = next(iter(call.get_children()), None)
    if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
        return clangtu.member_name(callee)
    if callee is not None and callee.kind == K.DECL_REF_EXPR and callee.referenced is not None \
            and callee.referenced.kind == K.OVERLOADED_DECL_REF:
        return callee.referenced.spelling  # memcpy(d, s, n * sizeof(T)): not yet resolved
    return ""


def _bound_to_reference(cursor: ci.Cursor, user: ci.Cursor, parents: tuple) -> bool:
    """``cursor`` (through wrappers) is an argument of the call ``user`` whose parameter
    is a reference to non-const (``std::swap(A[i], A[j])``): the callee may read and
    write it, as the front end counts it."""
    callee = user.referenced
    if callee is None:
        return False
    chain = list(parents) + [cursor]
    below = chain[chain.index(user) + 1] if user in chain else cursor
    return any(arg == below and mutable_reference(param.type)
               for arg, param in zip(user.get_arguments(), callee.get_arguments()))


def is_conditional(cursor: ci.Cursor, parents: tuple) -> bool:
    """Whether the access lies in a branch of ``?:`` or right of ``&&`` / ``||``."""
    chain = list(parents) + [cursor]
    for n, node in enumerate(chain[:-1]):
        below = chain[n + 1]
        operands = list(node.get_children())
        if node.kind == K.CONDITIONAL_OPERATOR and below != operands[0]:
            return True
        if (node.kind == K.BINARY_OPERATOR and clangtu.binary_operator(node) in ("&&", "||")
                and below == operands[-1]):
            return True
    return False


def written_span(unit: clangtu.Unit, cursor: ci.Cursor, data: bytes) -> tuple[int, int] | None:
    """The bytes where the access is spelled in the kernel text, in a macro's argument
    (``assert(buf[i] >= 0)``) or out of macros; None when a macro's body produces it.
    Spelled out of macros, a subscript ends with its ``]``, a dereference starts with
    its ``*``, a member access ends with the member's name."""
    written = unit.argument_span(cursor.extent)
    if written is not None:
        return written
    start, end = cursor.extent.start, cursor.extent.end
    if cursor.kind == K.ARRAY_SUBSCRIPT_EXPR:
        spelled = data[end.offset - 1:end.offset] == b"]"
    elif cursor.kind in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR):
        name = cursor.spelling.encode(errors=KEEP_BYTES)
        spelled = bool(name) and data[end.offset - len(name):end.offset] == name
    else:
        spelled = data[start.offset:start.offset + 1] == b"*"
    if (start.file is not None and end.file is not None
            and start.file.name == end.file.name and start.offset < end.offset and spelled):
        return start.offset, end.offset
    return None


def _root(cursor: ci.Cursor) -> ci.Cursor:
    """The expression at the bottom of a subscript chain ``A`` in ``A[i][j]``."""
    node = cursor
    while node.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        children = list(node.get_children())
        if not children:
            break
        node = children[0]
    return node


def access_edits(cursor: ci.Cursor, span: tuple[int, int], site: int, kind: int, copy: str,
                 data: bytes) -> list[Insert]:
    start, end = span
    root = _root(cursor)
    name = root.spelling.encode(errors=KEEP_BYTES)
    base = "nullptr"  # a name that is no array or pointer (a template's V<N> &v): by address
    if (root.kind == K.DECL_REF_EXPR and name and data.startswith(name, start)
            and _memory_type(root.type)):
        base = name.decode(errors=KEEP_BYTES)
    # through a struct's fields: an element only of an array of its own size
    recorder = "at_exact" if root.kind == K.MEMBER_REF_EXPR and not _by_address(root) else "at"
    # the blank keeps '%' or '<' before the access from making a digraph ('%:' is '#')
    opener = f" {NAMESPACE}{recorder}({site}, {kind}, {copy}, {base}, "
    return [Insert(start, True, -end, opener), Insert(end, False, -start, ")")]


_MEMORY_KINDS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                 ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY,
                 ci.TypeKind.POINTER)


def _memory_type(kind: ci.Type) -> bool:
    """An array or a pointer (through a reference): a name that converts to the
    ``const volatile void*`` that the recorder takes."""
    return clangtu.referred(kind).kind in _MEMORY_KINDS


def unwrapped(cursor: ci.Cursor) -> ci.Cursor:
    """``cursor`` without the implicit conversions and parentheses around it (where
    the front end places an expression)."""
    while cursor.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor
