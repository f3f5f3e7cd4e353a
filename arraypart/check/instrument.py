"""The original kernel's text, instrumented so that g++ records every array access.

This reads the kernel with libclang directly (``clang.cindex``: cursor kinds, extents
and tokens) and shares none of the front end's lowering or index arithmetic: the
recorded addresses are what g++ computes from the index values the program really takes.

Edits are insertions at byte offsets of the text (nothing is removed), made in the
kernel file and alike in each file it includes from its folder (:mod:`.included`):

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
from dataclasses import dataclass, field
from typing import Mapping

import clang.cindex as ci

from .. import interrupts, ir
from ..errors import Coord
from ..codegen.testbench import ORIGINAL_PREFIX, shared_type_edits
from ..frontend import clangtu
from .element_accesses import (ARRAY_TYPES, FUNCTIONS, access_edits, access_kind,
                               arrow_edits, called_name, is_arrow_object, is_conditional,
                               is_element, name_span, narrow_cast, of_struct_value,
                               routine_name, unit_cursors, unwrapped, written_span)
from .included import IncludedSource, IncludedUnit, included_units, relative_path
from .inserts import NAMESPACE, Insert, apply
from .traced_loops import (LOOP_KINDS, function_edits, loop_edits, model_pipelines,
                           synthesis_only_loops, traced_loops, written_loop)

K = ci.CursorKind
KINDS = ("read", "write", "update")
# The sites of an access of each kind: an update's read and write are two, the write
# right after the read, so that each (loop, site, lane) of the records makes one access
# a step and keeps its place among the step's others (:mod:`.traced_epochs`).
_SITE_KINDS = {"read": ("read",), "write": ("write",), "update": ("read", "write")}
# The C library's routines that copy or fill memory (also as the compiler's
# ``__builtin_`` forms), and those of them that read a source
# (:mod:`arraypart.frontend.routines`).
_ROUTINES = frozenset(("memcpy", "memmove", "memset"))
_COPYING = frozenset(("memcpy", "memmove"))


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
    g++ does not compile; ``sources``: the files the kernel file includes from its
    folder, instrumented alike (:mod:`.included`; their sites and loops numbered after
    the kernel file's)."""

    text: str
    sites: tuple[Site, ...]
    loops: tuple[TracedLoop, ...]
    skipped: tuple[Coord, ...]
    globals: tuple[tuple[int, str], ...]
    synthesis_only: tuple[Coord, ...] = ()  # loops not traced: g++ compiles other text
    included: tuple[Coord, ...] = ()
    sources: tuple[IncludedSource, ...] = ()


def instrument(kernel: ir.Kernel, options: clangtu.Options,
               copies: Mapping[Coord, str] | None = None) -> Instrumented:
    """The kernel's text (as the testbench includes it) with the edits of the module
    doc; array ids are positions in ``kernel.arrays``; ``copies``: coordinate of a
    reference -> the C text of the copy its reads record.  Interruptions wait until it
    is done (one swallowed inside a libclang callback would cut the walk short)."""
    with interrupts.deferred():
        return _instrument(kernel, options, copies or {})


@dataclass(frozen=True, slots=True)
class _Context:
    """What every file's walk reads: array ids (of the IR's non-interface arrays, by
    name; of its locals, by their declaration's (line, col, name)), the struct
    variables' array fields (:func:`_struct_fields`), the places of references bound
    to a C++ reference, the read copies by place, the header definitions the front end
    reads as the file's."""

    ids: Mapping[str, int]
    local_ids: Mapping[tuple[int, int, str], int]
    fields: Mapping[tuple, list[tuple[str, int]]]
    bound: frozenset[Coord]
    copies: Mapping[Coord, str]
    read: frozenset[tuple[str, int]]


@dataclass(slots=True)
class _Found:
    """The walk's results so far, over every file: sites in record order, accesses left
    alone (macro text), file-scope arrays to register, accesses of files that function
    bodies include."""

    sites: list[Site] = field(default_factory=list)
    skipped: list[Coord] = field(default_factory=list)
    globals: list[tuple[int, str]] = field(default_factory=list)
    in_headers: list[Coord] = field(default_factory=list)


def _instrument(kernel: ir.Kernel, options: clangtu.Options,
                copies: Mapping[Coord, str]) -> Instrumented:
    unit = clangtu.parse(kernel.source.text, kernel.path, options)
    model = model_pipelines(kernel.body)
    loops = traced_loops(unit, model)
    differing = synthesis_only_loops(unit, loops,
                                     clangtu.synthesis_only_ranges(unit, options))
    loops = {key: value for key, value in loops.items() if key not in differing}
    ids = {a.name: n for n, a in enumerate(kernel.arrays) if not a.interface}
    # a local's id by its declaration's place: two blocks may declare one C name
    local_ids = {(d.coord.line, d.coord.col, _spelled(kernel.by_name[name], d.name)): ids[name]
                 for name, d in kernel.source.local_decls.items() if name in ids}
    context = _Context(ids, local_ids, _struct_fields(kernel, ids),
                       frozenset(a.coord for a in ir.accesses(kernel.body) if a.by_reference),
                       copies, frozenset(kernel.source.header_definitions))
    found = _Found()
    inserts = _kernel_file_edits(unit, kernel, context, loops, found)
    inserts += [Insert(offset, False, 0, text)
                for offset, text in shared_type_edits(kernel.source.shared_types)]
    # the testbench's renaming of the top (codegen.testbench._copied): innermost, the
    # name's own prefix (every other opener's rank is at most 0)
    inserts += [Insert(offset, True, 1, ORIGINAL_PREFIX) for offset in kernel.source.renamed_at]
    traced = _traced(unit, loops)
    sources = []
    for view in included_units(unit, kernel.path):
        # synthesis-only text of an included file is not looked for (the kernel file's is)
        mine = traced_loops(view, model)
        # every file is copied, edited or not: the copies include one another
        edits = _included_file_edits(view, context, mine, len(traced), found)
        sources.append(IncludedSource(view.filename, relative_path(view, kernel.path),
                                      apply(view.data, edits)))
        traced += _traced(view, mine)
    return Instrumented(apply(unit.data, inserts), tuple(found.sites), traced,
                        tuple(found.skipped), tuple(found.globals),
                        tuple(unit.coord(key) for key in sorted(differing)),
                        tuple(found.in_headers), tuple(sources))


def _traced(unit: clangtu.Unit, loops: Mapping[int, tuple[ci.Cursor, str]]
            ) -> tuple[TracedLoop, ...]:
    """The traced loops of ``unit``'s file, in the order of their ids."""
    return tuple(TracedLoop(unit.coord(c.extent.start.offset) if c.kind in LOOP_KINDS
                            else unit.location_coord(c.location), u)
                 for c, u in loops.values())


def _kernel_file_edits(unit: clangtu.Unit, kernel: ir.Kernel, context: _Context,
                       loops: Mapping[int, tuple[ci.Cursor, str]], found: _Found
                       ) -> list[Insert]:
    """The edits of the kernel file: its own text's (:func:`_edits`), and where a
    header's text lies in it, the registration of the arrays that header declares
    (file-scope ones by the driver; locals of an ``#include`` in a function body after
    that line) and the accesses it makes there (listed, not edited)."""
    inserts: list[Insert] = []
    seen: set[tuple[int, int]] = set()
    headers = {a.name for a in kernel.arrays if a.header}
    included = _inclusion_lines(unit)
    ids, fields = context.ids, context.fields
    for cursor, parents in unit_cursors(unit):
        if unit.in_main(cursor.location):
            inserts += _edits(unit, cursor, parents, context, loops, 0, seen, found, True)
        elif cursor.kind == K.VAR_DECL and not parents and not _defined_in_file(unit, cursor):
            found.globals += [(ids[cursor.spelling], f"::{cursor.spelling}")] if (
                cursor.spelling in headers and cursor.spelling in ids) else []
            found.globals += [(n, f"::{cursor.spelling}.{member}") for member, n
                              in fields.get((0, 0, cursor.spelling), ())]
        elif (cursor.kind == K.DECL_STMT and parents
              and parents[-1].kind == K.COMPOUND_STMT
              and unit.in_main(parents[-1].location)):
            at = _after_inclusion(included, cursor, parents[-1])
            inserts += (_register_edits(cursor, ids, context.local_ids, fields, at)
                        if at is not None else [])
        elif is_element(cursor, parents, context.read) and any(unit.in_main(p.location)
                                                               for p in parents):
            found.in_headers.append(unit.location_coord(cursor.location))
    return inserts


def _included_file_edits(view: IncludedUnit, context: _Context,
                         loops: Mapping[int, tuple[ci.Cursor, str]], first_loop: int,
                         found: _Found) -> list[Insert]:
    """The edits of an included file's own text (:func:`_edits`; its file-scope arrays
    are registered with the kernel file's headers', :func:`_kernel_file_edits`), its
    loops numbered from ``first_loop``."""
    seen: set[tuple[int, int]] = set()
    return [edit for cursor, parents in unit_cursors(view) if view.in_main(cursor.location)
            for edit in _edits(view, cursor, parents, context, loops, first_loop, seen, found,
                               False)]


def _edits(unit: clangtu.Unit, cursor: ci.Cursor, parents: tuple, context: _Context,
           loops: Mapping[int, tuple[ci.Cursor, str]], first_loop: int,
           seen: set[tuple[int, int]], found: _Found, file_scope: bool) -> list[Insert]:
    """The edits of one cursor of ``unit``'s own text (module doc), its sites and
    skipped places added to ``found``; ``seen``: the spans of the file already
    edited; with ``file_scope``, a file-scope array declared here is registered."""
    data = unit.data
    arrow = is_arrow_object(cursor, parents)
    if arrow or is_element(cursor, parents, context.read):
        span = (name_span if arrow else written_span)(unit, cursor, data)
        if span is None or span in seen:
            # a macro's body, or an argument it expands twice (MAX(a[i], b)): the
            # place's accesses are left out on both sides
            found.skipped.append(unit.coord(cursor.extent.start.offset if span is None
                                            else span[0]))
            return []
        seen.add(span)
        coord = unit.coord(span[0])
        kind = access_kind(cursor, parents, coord in context.bound)
        kind = KINDS.index("update" if kind == "write" and narrow_cast(cursor) else kind)
        copy = context.copies.get(coord, "0")
        site = len(found.sites)
        conditional = is_conditional(cursor, parents)
        found.sites += [Site(coord, k, conditional, copy if k == "read" else "0")
                        for k in _SITE_KINDS[KINDS[kind]]]
        return (arrow_edits(cursor, span, site, kind, copy, data) if arrow
                else access_edits(cursor, span, site, kind, copy, data))
    if _is_routine(cursor, unit):
        routine = _routine_edits(cursor, unit, len(found.sites))
        if routine is None:
            found.skipped.append(unit.coord(cursor.extent.start.offset))
            return []
        found.sites += routine[1]
        return routine[0]
    if cursor.kind in LOOP_KINDS and written_loop(cursor, data):
        return loop_edits(cursor, loops, data, context.read, first_loop)
    if cursor.kind in FUNCTIONS and cursor.extent.start.offset in loops:
        return function_edits(cursor, loops, first_loop)
    if cursor.kind == K.DECL_STMT and parents and parents[-1].kind == K.COMPOUND_STMT:
        return _register_edits(cursor, context.ids, context.local_ids, context.fields,
                               block=parents[-1])
    if file_scope and cursor.kind == K.VAR_DECL and all(p.kind == K.NAMESPACE
                                                        for p in parents):
        name = _qualified_name(cursor)
        found.globals += [(context.ids[cursor.spelling], name)] if (
            cursor.spelling in context.ids) else []
        found.globals += [(n, f"{name}.{member}") for member, n
                          in context.fields.get((0, 0, cursor.spelling), ())]
    return []


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
    if cursor.kind != K.CALL_EXPR or routine_name(cursor) not in _ROUTINES:
        return False
    called = cursor.referenced
    # the compiler declares ``__builtin_memcpy`` where it is first called
    defined = None if called is None else called.get_definition()
    return defined is None or not unit.in_main(defined.location)


def _routine_edits(cursor: ci.Cursor, unit: clangtu.Unit, first_site: int
                   ) -> tuple[list[Insert], list[Site]] | None:
    """The edits and sites of a routine call (None when a macro writes it, or one of
    its arguments): ``memcpy(d, s, n)`` becomes
    ``routine(W, R, memcpy(d, source(s), count(n)))``, which records, once the call
    has run, a read of each element of the source and a write of each of the
    destination that the bytes cover (``R`` -1 for ``memset``, which reads a value,
    and either -1 for a struct's array field, :func:`_field_memory`); sites W and R
    are the destination's and the source's places."""
    data = unit.data
    start, end = cursor.extent.start.offset, cursor.extent.end.offset
    args = [unwrapped(a) for a in cursor.get_arguments()]
    spans = [(a.extent.start.offset, a.extent.end.offset) for a in args]
    if (len(args) != 3 or not data[start:end].endswith(b")")
            or not re.match(rb"(::)?(std::)?" + called_name(cursor).encode() + rb"\b",
                            data[start:end])
            or any(not (start < lo < hi < end) or not unit.in_main(a.extent.start)
                   for a, (lo, hi) in zip(args, spans))):
        return None
    copying = routine_name(cursor) in _COPYING
    sites = [Site(unit.coord(lo), kind, _field_memory(arg))
             for arg, (lo, _), kind in zip(args, spans, ("write", "read")[:1 + copying])]
    recorded = [-1 if site.conditional else first_site + n for n, site in enumerate(sites)]
    inserts = [Insert(start, True, -end, f" {NAMESPACE}routine({recorded[0]}, "
                                         f"{(recorded + [-1])[1]}, "),
               Insert(end, False, -start, ")")]
    wrapped = ((spans[1], "source"), (spans[2], "count")) if copying else ((spans[2], "count"),)
    for (lo, hi), what in wrapped:
        inserts += [Insert(lo, True, -hi, f"{NAMESPACE}{what}("), Insert(hi, False, -lo, ")")]
    return inserts, sites


def _field_memory(arg: ci.Cursor) -> bool:
    """``r[i].buf`` (``&r[i].buf[k]``, ``p->key + k``): an array field of a struct
    element, whose bytes the front end counts as an access of the element, which the
    argument may or may not record itself (:func:`is_element`).  The routine records
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
    return node.kind == K.MEMBER_REF_EXPR and not of_struct_value(node)


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
                    at: int | None = None, block: ci.Cursor | None = None) -> list[Insert]:
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
        if found is not None and decl.type.get_canonical().kind in ARRAY_TYPES:
            named.append((decl.spelling, found))
        named += [(f"{decl.spelling}.{member}", n) for member, n in fields.get(place, ())]
    scoped = bool(named) and block is not None and not _label_after(cursor, block)
    return [Insert(end, True, 0, (
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
