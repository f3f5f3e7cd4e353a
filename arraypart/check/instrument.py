"""The original kernel's text, instrumented so that g++ records every array access.

This reads the kernel with libclang directly (``clang.cindex``: cursor kinds, extents
and tokens) and shares none of the front end's lowering or index arithmetic: the
recorded addresses are what g++ computes from the index values the program really takes.

Edits are insertions at byte offsets of the text (nothing is removed):

- an element access ``E`` (an ``ARRAY_SUBSCRIPT_EXPR``, or a dereference ``*p``,
  whose type is not an array, not the base of another subscript, not under ``&``, not
  into an array field of an array's element (``A[i].f[k]``: the element ``A[i]`` is
  the access); or a field of ``this`` that is no array: found by address, a struct
  element's member is that element, as the front end inlines the method on it)
  becomes ``::arraypart_trace::at(SITE, KIND, COPY, BASE, E)``, which logs and
  returns the same lvalue (one wider than its array's element, ``*(long long *)&A[k]``
  on a short A, as each element it covers, as the front end counts it); ``BASE`` is the array variable at the root of the subscript
  chain (the runtime finds the array from it, so an out-of-bounds index still gets its
  array); ``COPY`` is the C text of the read copy the caller gives for the reference
  written there (a banking's copy expression over the loop iterators; 0 when none is
  given), so each read records the copy its own iterator values select.  An element
  of a field that a name reaches through fields (``w.buf[k]``, ``p->buf[k]``: of a
  struct variable, a memory of its own) and the struct ``*p`` of ``p->f`` go to
  ``at_exact``, which records them only as an element of an array of their own size
  (a member access's object as :func:`arraypart.frontend.clangtu.member_object`
  spells it: ``(&w)->buf[k]`` and ``(*&w).buf[k]`` are ``w.buf[k]``, ``(*p).f`` is
  ``p->f``);
- a *traced loop* (a ``for``, ``while`` or ``do`` whose braced body holds ``#pragma
  HLS pipeline`` that is not ``off``, innermost loop around the pragma; or a loop the
  model pipelines without a pragma in its text: by Vitis' default or a
  ``--directives`` command, found by its coordinate, the one thing taken from the
  model) is wrapped in
  ``{ ::arraypart_trace::Scope s; for (...) { ::arraypart_trace::iter(LOOP, U); ... } }``:
  a block of ``U`` iterations (its ``unroll factor``, else 1) is one pipeline step;
  where a ``for``'s or ``while``'s condition accesses an element, the ``iter`` call
  goes into the condition instead, ``while ((iter(LOOP, U), cond))``: the check that
  lets an iteration run belongs to its step;
- a function the model pipelines as a whole (``#pragma HLS pipeline`` in its body,
  outside any loop) opens with ``Scope`` and ``iter(LOOP, 1)``: each call one step;
- every other ``for`` gets ``::arraypart_trace::bump()`` in its increment, so a
  record's *lane* (the count of inner-loop increments since its step began) tells the
  unrolled lanes of one step apart;
- a local array of the IR is registered after its declaration statement (after the
  `#include` line when a header included in a function body declares it), and so
  are a struct variable's array fields (``reg(id, w.buf)``; a file-scope struct's by
  the driver).

Writes are the left operand of ``=`` (through parentheses and member accesses); the
left operand of a compound assignment and the operand of ``++``/``--`` are *updates*
(a read and a write: two sites, the write's the read's plus one, recorded in that order
after the right operand, which g++ evaluates first).  Accesses written inside macros
are not instrumented (listed in ``skipped``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Mapping

import clang.cindex as ci

from .. import interrupts, ir
from ..errors import Coord
from ..codegen.testbench import ORIGINAL_PREFIX, shared_type_edits
from ..frontend import clangtu
from ..frontend import cnodes as N
from ..frontend.accesses import STREAM_READS
from ..sourcetext import KEEP_BYTES

K = ci.CursorKind
STREAM_TYPE = "hls::stream<"  # clang's canonical spelling of a stream, whatever was written
KINDS = ("read", "write", "update")
# The sites of an access of each kind: an update's read and write are two, the write
# right after the read, so that each (loop, site, lane) of the records makes one access
# a step and keeps its place among the step's others (:mod:`.traced_epochs`).
_SITE_KINDS = {"read": ("read",), "write": ("write",), "update": ("read", "write")}
_ARRAY_TYPES = frozenset((ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                          ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY))
_WRAPPERS = frozenset((K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.MEMBER_REF_EXPR))
# The loops a pipeline may be, by the keyword that starts them.
LOOP_KINDS = {K.FOR_STMT: b"for", K.WHILE_STMT: b"while", K.DO_STMT: b"do"}
_PIPELINE = re.compile(r"HLS\s+pipeline\b(?!.*\boff\b)", re.IGNORECASE)
# An unroll pragma's factor: an integer expression of numbers and names (a template's
# parameters, macros, ``CONFIG_T::n / 2``) that the instrumented text evaluates in
# place, so each instantiation of a template steps by its own factor; it ends where
# the pragma's next option begins.
_UNROLL_FACTOR = re.compile(
    r"HLS\s+unroll\b.*\bfactor\s*=\s*([\w:()+\-*/% ]+?)\s*"
    r"(?=$|\s(?:skip_exit_check|off)\b|\s\w+\s*=)", re.IGNORECASE)
NAMESPACE = "::arraypart_trace::"
# The C library's routines that copy or fill memory (also as the compiler's
# ``__builtin_`` forms), and those of them that read a source
# (:mod:`arraypart.frontend.routines`).
_ROUTINES = frozenset(("memcpy", "memmove", "memset"))
_COPYING = frozenset(("memcpy", "memmove"))
_TERMINATOR = re.compile(rb"(?:\s|/\*.*?\*/|//[^\n]*\n)*;", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Site:
    """One instrumented element access: where it is written, how it is used (read
    or write: an update is a read site and the write site after it), and whether it runs only on some values (``conditional``: in a branch of ``?:`` or the
    right operand of ``&&`` / ``||``); ``copy``: the C text its reads record as copy."""

    coord: Coord
    kind: str
    conditional: bool
    copy: str = "0"


@dataclass(frozen=True, slots=True)
class TracedLoop:
    """A pipelined loop; ``unroll``: iterations per pipeline step (the C++ expression
    the instrumented text evaluates)."""

    coord: Coord
    unroll: str


@dataclass(frozen=True, slots=True)
class Instrumented:
    """The instrumented text; ``sites[i]`` and ``loops[i]`` are the records' ``site``
    and ``loop`` ids; ``skipped`` the accesses left alone (macro text) and
    ``included`` those in a file a function body includes, not edited; ``globals``
    the IR's file-scope arrays as (array id, qualified name) for the driver to register:
    relative to the kernel's own text, or from ``::`` for a header's (the driver
    includes headers outside the namespace that holds the kernel's text);
    ``synthesis_only``: the pipelined loops left untraced because code only synthesis
    reads (``#ifdef __SYNTHESIS__``) stands in them or in a function they call, which
    g++ does not compile."""

    text: str
    sites: tuple[Site, ...]
    loops: tuple[TracedLoop, ...]
    skipped: tuple[Coord, ...]
    globals: tuple[tuple[int, str], ...]
    synthesis_only: tuple[Coord, ...] = ()  # loops not traced: g++ compiles other text
    included: tuple[Coord, ...] = ()


@dataclass(frozen=True, slots=True, order=True)
class _Insert:
    """Text put at ``offset``; at one offset closers come before openers, inner
    closers before outer ones, outer openers before inner ones (``rank``)."""

    offset: int
    opener: bool
    rank: int
    text: str


def instrument(kernel: ir.Kernel, options: clangtu.Options,
               copies: Mapping[tuple[int, int], str] | None = None) -> Instrumented:
    """The kernel's text (as the testbench includes it) with the edits of the module
    doc; array ids are positions in ``kernel.arrays``; ``copies``: (line, col) of a
    reference -> the C text of the copy its reads record.  Interruptions wait until it
    is done (one swallowed inside a libclang callback would cut the walk short)."""
    with interrupts.deferred():
        return _instrument(kernel, options, copies or {})


def _instrument(kernel: ir.Kernel, options: clangtu.Options,
                copies: Mapping[tuple[int, int], str]) -> Instrumented:
    unit = clangtu.parse(kernel.source.text, kernel.path, options)
    data = unit.data
    loops = _traced_loops(unit, _model_pipelines(kernel.body))
    differing = _synthesis_only_loops(unit, loops,
                                      clangtu.synthesis_only_ranges(unit, options))
    loops = {key: value for key, value in loops.items() if key not in differing}
    ids = {a.name: n for n, a in enumerate(kernel.arrays) if not a.interface}
    # a local's id by its declaration's place: two blocks may declare one C name
    local_ids = {(d.coord.line, d.coord.col, _spelled(kernel.by_name[name], d.name)): ids[name]
                 for name, d in kernel.source.local_decls.items() if name in ids}
    fields = _struct_fields(kernel, ids)
    inserts: list[_Insert] = []
    sites: list[Site] = []
    skipped: list[Coord] = []
    in_headers: list[Coord] = []
    seen: set[tuple[int, int]] = set()
    found_globals: list[tuple[int, str]] = []
    headers = {a.name for a in kernel.arrays if a.header}
    bound = {(a.coord.line, a.coord.col) for a in ir.accesses(kernel.body) if a.by_reference}
    included = _inclusion_lines(unit)
    read = frozenset(kernel.source.header_definitions)
    for cursor, parents in _unit_cursors(unit):
        if not unit.in_main(cursor.location):
            if cursor.kind == K.VAR_DECL and not parents and not _defined_in_file(unit, cursor):
                found_globals += [(ids[cursor.spelling], f"::{cursor.spelling}")] if (
                    cursor.spelling in headers and cursor.spelling in ids) else []
                found_globals += [(n, f"::{cursor.spelling}.{member}") for member, n
                                  in fields.get((0, 0, cursor.spelling), ())]
            elif (cursor.kind == K.DECL_STMT and parents
                  and parents[-1].kind == K.COMPOUND_STMT
                  and unit.in_main(parents[-1].location)):
                at = _after_inclusion(included, cursor, parents[-1])
                inserts += (_register_edits(cursor, ids, local_ids, fields, at)
                            if at is not None else [])
            elif _is_element(cursor, parents, read) and any(unit.in_main(p.location)
                                                      for p in parents):
                in_headers.append(unit.location_coord(cursor.location))
            continue
        arrow = _is_arrow_object(cursor, parents)
        if arrow or _is_element(cursor, parents, read):
            span = (_name_span if arrow else _written_span)(unit, cursor, data)
            if span is None or span in seen:
                # a macro's body, or an argument it expands twice (MAX(a[i], b)): the
                # place's accesses are left out on both sides
                skipped.append(unit.coord(cursor.extent.start.offset if span is None
                                          else span[0]))
                continue
            seen.add(span)
            coord = unit.coord(span[0])
            kind = _kind(cursor, parents, (coord.line, coord.col) in bound)
            kind = KINDS.index("update" if kind == "write" and _narrow_cast(cursor) else kind)
            copy = copies.get((coord.line, coord.col), "0")
            inserts += (_arrow_edits(cursor, span, len(sites), kind, copy, data) if arrow
                        else _access_edits(cursor, span, len(sites), kind, copy, data))
            conditional = _conditional(cursor, parents)
            sites += [Site(coord, k, conditional, copy if k == "read" else "0")
                      for k in _SITE_KINDS[KINDS[kind]]]
        elif _is_routine(cursor, unit):
            found = _routine_edits(cursor, unit, len(sites))
            if found is None:
                skipped.append(unit.coord(cursor.extent.start.offset))
                continue
            inserts += found[0]
            sites += found[1]
        elif cursor.kind in LOOP_KINDS and _written_loop(cursor, data):
            inserts += _loop_edits(cursor, loops, data, read)
        elif cursor.kind in _FUNCTIONS and cursor.extent.start.offset in loops:
            inserts += _function_edits(cursor, loops)
        elif cursor.kind == K.DECL_STMT and parents and parents[-1].kind == K.COMPOUND_STMT:
            inserts += _register_edits(cursor, ids, local_ids, fields,
                                       block=parents[-1])
        elif cursor.kind == K.VAR_DECL and all(p.kind == K.NAMESPACE for p in parents):
            found_globals += [(ids[cursor.spelling], _qualified_name(cursor))] if (
                cursor.spelling in ids) else []
            found_globals += [(n, f"{_qualified_name(cursor)}.{member}") for member, n
                              in fields.get((0, 0, cursor.spelling), ())]
    inserts += [_Insert(offset, False, 0, text)
                for offset, text in shared_type_edits(kernel.source.shared_types)]
    # the testbench's renaming of the top (codegen.testbench._copied): innermost, the
    # name's own prefix (every other opener's rank is at most 0)
    inserts += [_Insert(offset, True, 1, ORIGINAL_PREFIX) for offset in kernel.source.renamed_at]
    text = _apply(data, inserts)
    traced = tuple(TracedLoop(unit.coord(c.extent.start.offset) if c.kind in LOOP_KINDS
                              else unit.location_coord(c.location), u)
                   for c, u in loops.values())
    return Instrumented(text, tuple(sites), traced, tuple(skipped), tuple(found_globals),
                        tuple(unit.coord(key) for key in sorted(differing)), tuple(in_headers))


def _spelled(array: ir.Array, name: str) -> str:
    """The name a declaration ``name`` gives ``array``: ``w.buf`` for the array field
    ``buf`` of the struct ``w`` (:attr:`arraypart.ir.Array.member`)."""
    return name if array.member is None else f"{name}.{array.member}"


def _struct_fields(kernel: ir.Kernel, ids: Mapping[str, int]
                   ) -> dict[tuple, list[tuple[str, int]]]:
    """The array fields of each struct variable, (path, array id), by its declaration:
    (line, col, name) of a local, (0, 0, name) of a file-scope one."""
    places = {name: (d.coord.line, d.coord.col, d.name)
              for name, d in kernel.source.local_decls.items()}
    found: dict[tuple, list[tuple[str, int]]] = {}
    for a in kernel.arrays:
        if a.member is not None and a.name in ids:
            key = places.get(a.name, (0, 0, a.name.split(".")[0]))
            found.setdefault(key, []).append((a.member, ids[a.name]))
    return found


def _is_routine(cursor: ci.Cursor, unit: clangtu.Unit) -> bool:
    """A call of the C library's ``memcpy``, ``memmove`` or ``memset`` or their
    ``__builtin_`` forms (not one the kernel file defines), as the front end models it
    (:mod:`arraypart.frontend.routines`)."""
    if cursor.kind != K.CALL_EXPR or _routine_name(cursor) not in _ROUTINES:
        return False
    called = cursor.referenced
    # the compiler declares ``__builtin_memcpy`` where it is first called
    defined = None if called is None else called.get_definition()
    return defined is None or not unit.in_main(defined.location)


def _routine_edits(cursor: ci.Cursor, unit: clangtu.Unit, first_site: int
                   ) -> tuple[list[_Insert], list[Site]] | None:
    """The edits and sites of a routine call (None when a macro writes it, or one of
    its arguments): ``memcpy(d, s, n)`` becomes
    ``routine(W, R, memcpy(d, source(s), count(n)))``, which records, once the call
    has run, a read of each element of the source and a write of each of the
    destination that the bytes cover (``R`` -1 for ``memset``, which reads a value,
    and either -1 for a struct's array field, :func:`_field_memory`); sites W and R
    are the destination's and the source's places."""
    data = unit.data
    start, end = cursor.extent.start.offset, cursor.extent.end.offset
    args = [_unwrapped(a) for a in cursor.get_arguments()]
    spans = [(a.extent.start.offset, a.extent.end.offset) for a in args]
    if (len(args) != 3 or not data[start:end].endswith(b")")
            or not re.match(rb"(::)?(std::)?" + _called_name(cursor).encode() + rb"\b",
                            data[start:end])
            or any(not (start < lo < hi < end) or not unit.in_main(a.extent.start)
                   for a, (lo, hi) in zip(args, spans))):
        return None
    copying = _routine_name(cursor) in _COPYING
    sites = [Site(unit.coord(lo), kind, _field_memory(arg))
             for arg, (lo, _), kind in zip(args, spans, ("write", "read")[:1 + copying])]
    recorded = [-1 if site.conditional else first_site + n for n, site in enumerate(sites)]
    inserts = [_Insert(start, True, -end, f" {NAMESPACE}routine({recorded[0]}, "
                                          f"{(recorded + [-1])[1]}, "),
               _Insert(end, False, -start, ")")]
    wrapped = ((spans[1], "source"), (spans[2], "count")) if copying else ((spans[2], "count"),)
    for (lo, hi), what in wrapped:
        inserts += [_Insert(lo, True, -hi, f"{NAMESPACE}{what}("), _Insert(hi, False, -lo, ")")]
    return inserts, sites


def _field_memory(arg: ci.Cursor) -> bool:
    """``r[i].buf`` (``&r[i].buf[k]``, ``p->key + k``): an array field of a struct
    element, whose bytes the front end counts as an access of the element, which the
    argument may or may not record itself (:func:`_is_element`).  The routine records
    nothing for it, and its place is a *may* place (:class:`Site`): every access the
    run makes there must be one the model allows.  A struct variable's field
    (``w.buf``, ``&w.buf[k]``: a memory of its own, registered) is no such field: the
    routine records its elements, as the front end counts them."""
    node = arg
    while node.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR,
                        K.ARRAY_SUBSCRIPT_EXPR, K.BINARY_OPERATOR) or (
            node.kind == K.UNARY_OPERATOR and clangtu.unary_operator(node) == "&"):
        kids = [k for k in node.get_children() if k.kind.is_expression()]
        if not kids:
            return False
        node = kids[0]
    return node.kind == K.MEMBER_REF_EXPR and not _of_struct_value(node)


def _unwrapped(cursor: ci.Cursor) -> ci.Cursor:
    """``cursor`` without the implicit conversions and parentheses around it (where
    the front end places an expression)."""
    while cursor.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def _synthesis_only_loops(unit: clangtu.Unit, loops: dict,
                          ranges: list[tuple[int, int]]) -> set[int]:
    """The keys of ``loops`` in whose text, or in that of a function they call (at any
    depth), code only synthesis reads stands (``ranges``), or that name a variable
    declared there (``int buf[64]`` under ``#ifdef __SYNTHESIS__``, a ``malloc``'d
    pointer for C simulation: SDAccel's linear search)."""
    if not ranges:
        return set()

    def within(c: ci.Cursor) -> bool:
        return any(lo < c.extent.end.offset and c.extent.start.offset < hi
                   for lo, hi in ranges)

    def holds(c: ci.Cursor) -> bool:
        return within(c) or any(
            n.kind == K.DECL_REF_EXPR and n.referenced is not None
            and n.referenced.kind == K.VAR_DECL and unit.in_main(n.referenced.location)
            and within(n.referenced) for n in c.walk_preorder())

    functions = [c for c in clangtu.own_cursors(unit) if c.kind in _FUNCTIONS
                 and c.is_definition() and unit.in_main(c.location)]
    tainted = {f.spelling for f in functions if holds(f)}
    grown = True
    while grown:
        found = {f.spelling for f in functions if f.spelling not in tainted
                 and _calls_any(f, tainted)}
        tainted |= found
        grown = bool(found)
    return {key for key, (c, _) in loops.items() if holds(c) or _calls_any(c, tainted)}


def _calls_any(cursor: ci.Cursor, names: set[str]) -> bool:
    return any(n.kind == K.CALL_EXPR and n.spelling in names for n in cursor.walk_preorder())


def _defined_in_file(unit: clangtu.Unit, variable: ci.Cursor) -> bool:
    """``variable``, declared in a header (``extern int t[8];``), is defined in the
    kernel file: registered where the file defines it, in ``namespace original``."""
    definition = variable.get_definition()
    return definition is not None and unit.in_main(definition.location)


def _qualified_name(variable: ci.Cursor) -> str:
    """A file-scope variable's name with the namespaces and classes it belongs to
    (``ns::tab``; ``T::tab`` for a static member defined as ``int T::tab[64];``)."""
    names = [variable.spelling]
    parent = variable.semantic_parent
    while parent is not None and parent.kind in (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL):
        names.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(names))


def _unit_cursors(unit: clangtu.Unit) -> Iterator[tuple[ci.Cursor, tuple]]:
    """:func:`_walk` of the whole unit, without descending into the top-level cursors
    whose trees hold none of the kernel file's code (``Unit.own_trees``: the headers'
    own declarations, thousands for ap_int.h)."""
    own = {c.hash for c in unit.own_trees}
    for top in unit.top:
        yield top, ()
        if top.hash in own and not _compile_time(top):
            yield from _walk(top, (top,))


def _walk(cursor: ci.Cursor, parents: tuple) -> Iterator[tuple[ci.Cursor, tuple]]:
    """Every cursor below ``cursor`` with its ancestors, except inside ``constexpr``
    functions: the compiler may run those while compiling, where no recording call
    (nor a Scope with a destructor) is allowed."""
    for child in cursor.get_children():
        yield child, parents
        if not _compile_time(child):
            yield from _walk(child, parents + (child,))


_FUNCTIONS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR)


def _compile_time(cursor: ci.Cursor) -> bool:
    """A ``constexpr`` (or ``consteval``) function: its head, before the body or the
    ``;``, says so."""
    if cursor.kind not in _FUNCTIONS:
        return False
    for token in cursor.get_tokens():
        if token.spelling in ("{", ";"):
            return False
        if token.spelling in ("constexpr", "consteval"):
            return True
    return False


def _is_element(cursor: ci.Cursor, parents: tuple,
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
        return False  # (*&w).f, (*p).f: w's fields, p's element (:func:`_is_arrow_object`)
    if any(t.get_canonical().spelling.startswith(STREAM_TYPE)
           for t in (cursor.type, _root(cursor).type)):  # the root's in a template too
        return False
    if cursor.type.get_canonical().kind in _ARRAY_TYPES or (
            _root(cursor).kind == K.MEMBER_REF_EXPR and not _of_this(_root(cursor))
            and not _of_struct_variable(_root(cursor))):
        return False
    user = _user(cursor, parents)
    if user is not None and _inlined_method(user, read) and _first_operand_path(
            cursor, user, parents):
        return False  # W[i].f(): the method's member accesses are the element's
    return not (user is not None and user.kind == K.UNARY_OPERATOR
                and clangtu.unary_operator(user) == "&")


def _is_arrow_object(cursor: ci.Cursor, parents: tuple) -> bool:
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
    if member.type.get_canonical().kind in _ARRAY_TYPES:
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


def _name_span(unit: clangtu.Unit, cursor: ci.Cursor, data: bytes) -> tuple[int, int] | None:
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


def _arrow_edits(cursor: ci.Cursor, span: tuple[int, int], site: int, kind: int,
                 copy: str, data: bytes) -> list[_Insert]:
    """``p->f`` becomes ``(&at(SITE, KIND, COPY, p, *p))->f``: the element ``*p`` is
    logged and its address goes on to the member access (``h->q->f``: ``*h->q``, its
    array found by address alone)."""
    start, end = span
    base = (data[start:end].decode(errors=KEEP_BYTES) if cursor.kind == K.DECL_REF_EXPR
            else "nullptr")
    opener = f" (&{NAMESPACE}at_exact({site}, {kind}, {copy}, {base}, *"
    return [_Insert(start, True, -end, opener), _Insert(end, False, -start, "))")]


def _inlined_method(call: ci.Cursor, read: frozenset[tuple[str, int]]) -> bool:
    """``call`` calls a non-static method that the kernel file, or one of its own
    headers at a site in ``read`` (:attr:`arraypart.ir.SourceUnit.header_definitions`),
    defines with a body, which the front end inlines on its object
    (:func:`arraypart.frontend.calls.implicit_object`): an operator too (``q[k](i, v)``,
    ``q[k] += v``), not one the compiler declares (a struct's own ``=``).  A header's
    accesses are not recorded (:func:`_instrument` edits the kernel file only), so
    neither is its object there."""
    method = _called_method(call) if call.kind == K.CALL_EXPR else None
    if method is None or method.kind != K.CXX_METHOD or method.is_static_method():
        return False
    definition = method.get_definition()
    return (definition is not None and definition.location.file is not None
            and (definition.location.file.name == call.translation_unit.spelling
                 or N.definition_site(definition) in read)
            and N.written_body(method))


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
    element = (base.element_type if base.kind in _ARRAY_TYPES else base.get_pointee()
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
            and init.type.get_canonical().kind not in _ARRAY_TYPES)


def _of_struct_variable(member: ci.Cursor) -> bool:
    """``member`` is a field of a struct a name reaches through fields alone
    (``w.buf``, ``w.in.buf``, ``s.buf`` of a reference ``s``, ``p->buf``): of a
    struct variable, a memory of its own (:attr:`arraypart.ir.Array.member`), which
    the runtime finds by address and records as an element of the field's size (of a
    struct element ``p[0]``, whose own access ``*p`` is recorded, it records nothing:
    the element is of another size; a top's struct argument, aggregated, is no
    memory it registers); not of the implicit this (:func:`_of_this`'s)."""
    return _member_root(member).kind == K.DECL_REF_EXPR


def _of_struct_value(member: ci.Cursor) -> bool:
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
            or cursor.type.get_canonical().kind in _ARRAY_TYPES or not _by_address(cursor)):
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


def _kind(cursor: ci.Cursor, parents: tuple, written_through: bool = True) -> str:
    """read, write (left of ``=``) or update (left of ``op=``, under ``++``/``--``),
    for built-in operators and for the overloaded ones of class types (``ap_int``);
    an argument bound to a reference to non-const is an update where the front end
    found that the callee may write through it (``written_through``: its
    ``Access.by_reference``; a template's ``T &x`` that only reads does not)."""
    user = _user(cursor, parents)
    if user is None:
        return "read"
    if user.kind == K.CALL_EXPR and _first_operand_path(cursor, user, parents):
        called = _called_name(user)
        if called in _PART_SELECTS:
            # A[i].range(h, l) = v keeps the bits outside the selection: an update
            above = tuple(parents[:list(parents).index(user)])
            return "read" if _kind(user, above, written_through) == "read" else "update"
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


def _narrow_cast(cursor: ci.Cursor) -> bool:
    """``*(T *)&A[e]`` (``*(T *)(A + e)``, ``*reinterpret_cast<T *>(...)``), or a
    byte view ``((T *)&A[e])[k]``, with T narrower than what the cast's operand points
    to: a write of it keeps the other bytes of the element that holds it, a
    read-modify-write, an update (:func:`arraypart.frontend.routines.partial_write`)."""
    dereference = (cursor.kind == K.UNARY_OPERATOR
                   and clangtu.unary_operator(cursor) == "*")
    if not (dereference or cursor.kind == K.ARRAY_SUBSCRIPT_EXPR):
        return False
    cast = _unwrapped(next(cursor.get_children()))
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


def _routine_name(call: ci.Cursor) -> str:
    """The name a call calls, without a ``__builtin_`` prefix."""
    return _called_name(call).removeprefix("__builtin_")


def _called_name(call: ci.Cursor) -> str:
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
    return any(arg == below and N.mutable_reference(param.type)
               for arg, param in zip(user.get_arguments(), callee.get_arguments()))


def _conditional(cursor: ci.Cursor, parents: tuple) -> bool:
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


def _written_span(unit: clangtu.Unit, cursor: ci.Cursor, data: bytes) -> tuple[int, int] | None:
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


def _access_edits(cursor: ci.Cursor, span: tuple[int, int], site: int, kind: int, copy: str,
                  data: bytes) -> list[_Insert]:
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
    return [_Insert(start, True, -end, opener), _Insert(end, False, -start, ")")]


_MEMORY_KINDS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                 ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY,
                 ci.TypeKind.POINTER)


def _memory_type(kind: ci.Type) -> bool:
    """An array or a pointer (through a reference): a name that converts to the
    ``const volatile void*`` that the recorder takes."""
    return clangtu.referred(kind).kind in _MEMORY_KINDS


def _model_pipelines(nodes: tuple[ir.Node, ...]) -> dict[tuple[int, int], int]:
    """(line, col) of each loop the model pipelines -> iterations per step."""
    found: dict[tuple[int, int], int] = {}
    for n in nodes:
        if isinstance(n, ir.Loop):
            if n.pipeline_ii is not None:
                found[(n.coord.line, n.coord.col)] = n.unroll if (n.unroll or 0) > 1 else 1
            found.update(_model_pipelines(n.body))
        elif isinstance(n, ir.If):
            found.update(_model_pipelines(n.then))
            found.update(_model_pipelines(n.orelse))
    return found


def _traced_loops(unit: clangtu.Unit, model: dict[tuple[int, int], int]
                  ) -> dict[int, tuple[ci.Cursor, str]]:
    """Start offset of each pipelined ``for`` (in text order) -> (its cursor, its
    unroll factor); a pragma belongs to the innermost ``for`` that holds it in its
    region (:func:`_pragma_region`),
    and a ``for`` at a coordinate of ``model`` (the model's pipelined loops) is one too;
    so is a function the model pipelines as a whole (:func:`_pipelined_functions`);
    a pipelined ``for`` inside another is not (Vitis unrolls it into the outer one's
    steps, as the model does), unless the outer one's pipeline is only its pragma's and
    the inner one is the model's (Vitis could not unroll a loop between them)."""
    fors = [c for c in clangtu.own_cursors(unit) if c.kind in LOOP_KINDS
            and unit.in_main(c.location) and _written_loop(c, unit.data)]
    regions = [(c, _pragma_region(c)) for c in fors]
    owners = []
    for pragma in unit.pragmas:
        around = [(c, r) for c, r in regions if r[0] < pragma.start < r[1]]
        if around:
            owners.append((pragma.text, max(around, key=lambda cr: cr[1][0])[0]))
    pipelined = {loop.extent.start.offset: loop for text, loop in owners
                 if _PIPELINE.match(text)}
    templates = _template_parameters(unit)
    factors = {loop.extent.start.offset: factor for text, loop in owners
               for m in [_UNROLL_FACTOR.match(text.strip())] if m
               for factor in [_factor_text(m.group(1), loop, templates)] if factor}
    modelled = {}
    for c in fors:
        at = unit.coord(c.extent.start.offset)
        if (at.line, at.col) in model:
            modelled[c.extent.start.offset] = c
            pipelined.setdefault(c.extent.start.offset, c)
            # a factor the pragma spells otherwise (an expression) is the model's
            factors.setdefault(c.extent.start.offset, str(model[(at.line, at.col)]))
    for key, function in _pipelined_functions(unit, model).items():
        modelled[key] = pipelined[key] = function
    # a pragma's pipeline around one the model has is one Vitis could not unroll (a
    # loop of variable trip count inside): its pragma is ignored, as the model ignores it
    pipelined = {key: c for key, c in pipelined.items() if key in modelled or not any(
        key < inner.extent.start.offset and inner.extent.end.offset <= c.extent.end.offset
        for inner in modelled.values())}
    outermost = {key: c for key, c in pipelined.items() if not any(
        other.extent.start.offset < key and c.extent.end.offset <= other.extent.end.offset
        for other in pipelined.values())}  # a pipeline inside one is unrolled into it
    return {key: (outermost[key], factors.get(key, "1")) for key in sorted(outermost)}


def _pipelined_functions(unit: clangtu.Unit, model: dict[tuple[int, int], int]
                         ) -> dict[int, ci.Cursor]:
    """Start offset of each function definition of the kernel text that the model
    pipelines as a whole (a loop of one iteration at the function's name: each call
    one step) -> its cursor."""
    return {c.extent.start.offset: c for c in clangtu.own_cursors(unit)
            if c.kind in _FUNCTIONS and c.is_definition() and unit.in_main(c.location)
            for at in [unit.location_coord(c.location)] if (at.line, at.col) in model}


def _factor_text(written: str, loop: ci.Cursor,
                 templates: list[tuple[int, int, frozenset[str]]]) -> str | None:
    """A factor as the instrumented text writes it: a number as it is; an expression
    of the parameters of the function template around ``loop`` (``F``,
    ``CONFIG_T::n / 2``) in parentheses, evaluated per instantiation; None for any
    other (a name declared in the body, a macro that ``__SYNTHESIS__`` changes: the
    model's value, which synthesis sees, stands)."""
    if written.isdigit():
        return written
    at = loop.extent.start.offset
    names = {n for start, end, params in templates if start <= at < end for n in params}
    used = set(re.findall(r"(?<![\w:])[A-Za-z_]\w*", written))
    return f"({written})" if used and used <= names else None


def _template_parameters(unit: clangtu.Unit) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, parameter names) of each function template of the kernel text."""
    kinds = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER,
             K.TEMPLATE_TEMPLATE_PARAMETER)
    return [(c.extent.start.offset, c.extent.end.offset,
             frozenset(p.spelling for p in c.get_children() if p.kind in kinds))
            for c in clangtu.own_cursors(unit)
            if c.kind == K.FUNCTION_TEMPLATE and unit.in_main(c.location)]


def _pragma_region(loop: ci.Cursor) -> tuple[int, int]:
    """Where a pragma of ``loop`` may be written: inside its body's braces, or for a
    body without braces, between its header and its statement (the loop's start
    stands for the header's end: a pragma line cannot be inside the header)."""
    body = _loop_body(loop)
    if body.kind == K.COMPOUND_STMT:
        return body.extent.start.offset, body.extent.end.offset
    return loop.extent.start.offset, body.extent.end.offset


def _written_loop(cursor: ci.Cursor, data: bytes) -> bool:
    """Whether the loop's keyword is written in the kernel's text (not by a macro,
    whose header has no place there to edit: such a loop is not traced)."""
    return data[cursor.extent.start.offset:].startswith(LOOP_KINDS[cursor.kind])


def _loop_body(cursor: ci.Cursor) -> ci.Cursor:
    """The statement a loop repeats (a ``do``'s comes before its condition)."""
    children = list(cursor.get_children())
    return children[0] if cursor.kind == K.DO_STMT else children[-1]


def _loop_edits(cursor: ci.Cursor, loops: dict, data: bytes,
                read: frozenset[tuple[str, int]]) -> list[_Insert]:
    start, end = cursor.extent.start.offset, cursor.extent.end.offset
    if start in loops:
        loop_id = list(loops).index(start)
        call = f"{NAMESPACE}iter({loop_id}, {loops[start][1]})"
        step = f" {call};"
        body = _loop_body(cursor)
        end = _statement_end(data, end)
        around = [_Insert(start, True, -end, "{ " + NAMESPACE + "Scope trace_scope; "),
                  _Insert(end, False, -start, " }")]
        condition = _reading_condition(cursor, read)
        if condition is not None:
            # a step is one check of the condition and the body it lets run
            first, last = condition
            return around + [_Insert(first, True, -last - 1, f"({call}, "),
                             _Insert(last, False, -first + 1, ")")]
        if body.kind == K.COMPOUND_STMT:
            return around + [_Insert(body.extent.start.offset + 1, True, 0, step)]
        first = body.extent.start.offset
        return around + [_Insert(first, True, -end, "{" + step + " "),
                         _Insert(end, False, -first, " }")]
    where = _increment_at(cursor) if cursor.kind == K.FOR_STMT else None
    if where is None:
        return []
    offset, empty = where
    return [_Insert(offset, True, 0, f" {NAMESPACE}bump()" + ("" if empty else ","))]


def _function_edits(cursor: ci.Cursor, loops: dict) -> list[_Insert]:
    """A pipelined function's body opens with a ``Scope`` and one ``iter``: each call
    is one step (the destructor ends it at any ``return``)."""
    loop_id = list(loops).index(cursor.extent.start.offset)
    body = next(c for c in cursor.get_children() if c.kind == K.COMPOUND_STMT)
    return [_Insert(body.extent.start.offset + 1, True, 0,
                    f" {NAMESPACE}Scope trace_scope; {NAMESPACE}iter({loop_id}, 1);")]


def _reading_condition(loop: ci.Cursor, read: frozenset[tuple[str, int]]
                       ) -> tuple[int, int] | None:
    """The span of a ``for``'s or ``while``'s condition when it accesses an array
    element.  The condition that lets iteration k + 1 run is evaluated after body k,
    in the pipeline step of iteration k + 1 (a pipelined ``while (j > 0 && A[j - 1] >
    x)`` reads A[j - 1] once per iteration, with its body): the step starts there."""
    if loop.kind == K.WHILE_STMT:
        condition = next(iter(loop.get_children()), None)
    elif loop.kind == K.FOR_STMT:
        condition = _for_condition(loop)
    else:
        return None
    if condition is None or condition.kind == K.VAR_DECL or not any(
            _is_element(c, parents, read) for c, parents in _walk(condition, (condition,))):
        return None
    return condition.extent.start.offset, condition.extent.end.offset


def _for_condition(loop: ci.Cursor) -> ci.Cursor | None:
    """The child of a ``for`` written between the two ``;`` of its header (clang
    leaves absent parts out of the children)."""
    semicolons = _header_semicolons(loop)
    if len(semicolons) < 2:
        return None
    return next((c for c in loop.get_children()
                 if semicolons[0] <= c.extent.start.offset < semicolons[1]), None)


def _statement_end(data: bytes, end: int) -> int:
    """The end of the statement whose extent ends at ``end``: past its ``;`` when
    clang's extent stops before it (an expression statement's does)."""
    tail = _TERMINATOR.match(data, end)
    return tail.end() if tail else end


def _increment_at(cursor: ci.Cursor) -> tuple[int, bool] | None:
    """Offset just after the header's second ``;`` and whether the increment is
    empty (None when the header is not plain tokens)."""
    semicolons = _header_semicolons(cursor)
    if len(semicolons) < 2:
        return None
    tokens = list(cursor.get_tokens())
    after = next((t.spelling for t in tokens if t.extent.start.offset > semicolons[1]), "")
    return semicolons[1] + 1, after == ")"


def _header_semicolons(cursor: ci.Cursor) -> list[int]:
    """Offsets of the ``;`` of a ``for`` header, in the header's parentheses."""
    depth, found = 0, []
    for token in cursor.get_tokens():
        spelling = token.spelling
        if spelling in ("(", "[", "{"):
            depth += 1
        elif spelling in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        elif spelling == ";" and depth == 1:
            found.append(token.extent.start.offset)
    return found


def _inclusion_lines(unit: clangtu.Unit) -> list[tuple[str, int]]:
    """(included file, offset in the kernel text of the line after its ``#include``)
    for every ``#include`` the kernel file itself makes."""
    data = unit.data
    out = []
    for inclusion in unit.tu.get_includes():
        if inclusion.depth == 1 and inclusion.location.file is not None:
            newline = data.find(b"\n", inclusion.location.offset)
            out.append((inclusion.include.name, len(data) if newline < 0 else newline + 1))
    return out


def _after_inclusion(included: list[tuple[str, int]], decl: ci.Cursor,
                     block: ci.Cursor) -> int | None:
    """Where a local declared by a header that ``block`` includes is in scope in the
    kernel text: the start of the line after the ``#include`` (None: not found)."""
    name = decl.location.file.name if decl.location.file is not None else None
    start, end = block.extent.start.offset, block.extent.end.offset
    return next((at for header, at in included if header == name and start < at <= end),
                None)


_LABELS = (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT)


def _register_edits(cursor: ci.Cursor, ids: dict[str, int],
                    local_ids: dict[tuple[int, int, str], int],
                    fields: Mapping[tuple, list[tuple[str, int]]],
                    at: int | None = None, block: ci.Cursor | None = None) -> list[_Insert]:
    """Register the IR's local arrays declared by this statement, right after it (or at
    ``at``: the kernel-text position after the ``#include`` that declares them); an
    array's id is its declaration's (``local_ids``, by line, column and name), else its
    name's; a struct variable's array fields (``fields``, by its declaration's place)
    by their paths (``w.buf``).  In a ``block`` (the statement's, where given) by an
    object of the driver's ``Scoped``, whose end with the block ends the registration,
    so that a later local on the same stack slot (``memcpy(&tmp, ...)`` in another
    function) is no access of the ended array (probe 39 M3), unless a label after it
    could jump over it (:func:`_label_after`)."""
    end = cursor.extent.end.offset if at is None else at
    # at a line's start, a line of its own: the line there may be a preprocessor one
    tail = "" if at is None else "\n"
    named = []
    for decl in cursor.get_children():
        if decl.kind != K.VAR_DECL:
            continue
        place = (decl.location.line, decl.location.column, decl.spelling)
        found = local_ids.get(place, ids.get(decl.spelling))
        if found is not None and decl.type.get_canonical().kind in _ARRAY_TYPES:
            named.append((decl.spelling, found))
        named += [(f"{decl.spelling}.{member}", n) for member, n in fields.get(place, ())]
    scoped = bool(named) and block is not None and not _label_after(cursor, block)
    return [_Insert(end, True, 0, (
        f" {NAMESPACE}Scoped arraypart_scope_{n}_{end}({n}, {name});" if scoped
        else f" {NAMESPACE}reg({n}, {name});{tail}")) for name, n in named]


def _label_after(declaration: ci.Cursor, block: ci.Cursor) -> bool:
    """Whether a ``case``, ``default`` or ``goto`` label follows ``declaration`` in
    ``block``: a jump to it would cross the initialization of a ``Scoped`` object,
    which C++ refuses."""
    after = declaration.extent.end.offset
    stack = list(block.get_children())
    while stack:
        node = stack.pop()
        if node.kind in _LABELS and node.extent.start.offset >= after:
            return True
        stack.extend(node.get_children())
    return False


def _apply(data: bytes, inserts: list[_Insert]) -> str:
    out, last = [], 0
    for ins in sorted(inserts):
        out.append(data[last:ins.offset])
        out.append(ins.text.encode(errors=KEEP_BYTES))
        last = ins.offset
    out.append(data[last:])
    return b"".join(out).decode(errors=KEEP_BYTES)
